package compactor

import (
	"context"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubesplit/kubesplit/services/registry/embedetcd/etcdtest"
)

// TestOnceKeepsOneRound checks that a round compacts exactly to the
// revision the previous round recorded: history written since stays
// readable, history before is gone.
func TestOnceKeepsOneRound(t *testing.T) {
	_, c := etcdtest.Start(t)
	ctx := context.Background()
	put := func() int64 {
		r, err := c.Put(ctx, "/registry/core/configmaps/ns/a", time.Now().String())
		if err != nil {
			t.Fatal(err)
		}
		return r.Header.Revision
	}
	old := put()
	version, last, err := Once(ctx, c, 0, 0)
	if err != nil || version != 1 {
		t.Fatalf("first round: version %d, err %v", version, err)
	}
	kept := put()
	if _, _, err := Once(ctx, c, version, last); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, "/registry/core/configmaps/ns/a", clientv3.WithRev(old)); err != rpctypes.ErrCompacted {
		t.Errorf("revision %d before the previous round: err %v, want compacted", old, err)
	}
	if _, err := c.Get(ctx, "/registry/core/configmaps/ns/a", clientv3.WithRev(kept)); err != nil {
		t.Errorf("revision %d after the previous round is gone: %v", kept, err)
	}
}

// TestOnceOneReplicaPerRound checks that when two replicas run the same
// round, only the first claims it, and the other follows its count.
func TestOnceOneReplicaPerRound(t *testing.T) {
	_, c := etcdtest.Start(t)
	ctx := context.Background()
	v1, _, err := Once(ctx, c, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A second replica still at version 0 loses the claim and learns v1.
	v2, _, err := Once(ctx, c, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v1 != 1 || v2 != 1 {
		t.Errorf("versions %d and %d, want both 1", v1, v2)
	}
}
