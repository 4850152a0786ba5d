package storage

import (
	"context"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// scan reads the keys from start up to end at revision rev (0 for the
// current one), batch keys a request, so that all of them come from one
// snapshot without one huge response. each gets every key, whether more
// keys follow it and how many, and stops the scan by returning true. scan
// returns the revision it read at.
func scan(ctx context.Context, client *clientv3.Client, start, end string, rev, batch int64,
	each func(kv *mvccpb.KeyValue, more bool, left int64) (stop bool)) (int64, error) {
	for {
		resp, err := client.Get(ctx, start, clientv3.WithRange(end), clientv3.WithLimit(batch), clientv3.WithRev(rev))
		if err != nil {
			return rev, err
		}
		if rev == 0 {
			rev = resp.Header.Revision
		}
		for i, kv := range resp.Kvs {
			more := i < len(resp.Kvs)-1 || resp.More
			if each(kv, more, resp.Count-int64(i)-1) {
				return rev, nil
			}
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return rev, nil
		}
		start = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}
