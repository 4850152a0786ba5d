// Package compactor compacts etcd's history periodically, keeping one
// interval of it so that watches and paginated lists can resume within that
// window. Several registry replicas share the work through a key in etcd:
// only the one that wins a compare-and-swap on it compacts, as
// kube-apiserver's compactor does.
package compactor

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// key records the revision each compaction round was scheduled at.
const key = "/registry/.compact_rev_key"

// Run compacts every interval until ctx ends.
func Run(ctx context.Context, client *clientv3.Client, interval time.Duration) {
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	var version, last int64
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var err error
		version, last, err = Once(ctx, client, version, last)
		if err != nil {
			slog.Warn("etcd compaction failed", "err", err)
		}
	}
}

// Once runs one round: it claims the round (the key still at version),
// compacts to last, the revision the previous round recorded, and returns
// the key's new version and the revision this round recorded.
func Once(ctx context.Context, client *clientv3.Client, version, last int64) (int64, int64, error) {
	resp, err := client.Txn(ctx).
		If(clientv3.Compare(clientv3.Version(key), "=", version)).
		Then(clientv3.OpPut(key, strconv.FormatInt(version+1, 10))).
		Else(clientv3.OpGet(key)).Commit()
	if err != nil {
		return version, last, err
	}
	rev := resp.Header.Revision
	if !resp.Succeeded {
		// Another replica ran this round; follow its count.
		kvs := resp.Responses[0].GetResponseRange().Kvs
		if len(kvs) > 0 {
			return kvs[0].Version, rev, nil
		}
		return 0, rev, nil
	}
	if last > 0 {
		if _, err := client.Compact(ctx, last); err != nil {
			return version + 1, rev, err
		}
		slog.Info("compacted etcd", "revision", last)
	}
	return version + 1, rev, nil
}
