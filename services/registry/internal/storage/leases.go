package storage

import (
	"context"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// leaseReuse is how long one lease serves new objects. kube-apiserver
// reuses a lease for a minute too, so a burst of events costs one grant.
const leaseReuse = time.Minute

// leases hands out etcd leases for objects that expire (events), so etcd
// itself deletes them after their time to live.
type leases struct {
	client *clientv3.Client
	ttl    time.Duration

	mu      sync.Mutex
	id      clientv3.LeaseID
	granted time.Time
}

// get returns a lease that outlives ttl from now.
func (l *leases) get(ctx context.Context) (clientv3.LeaseID, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.id != 0 && time.Since(l.granted) < leaseReuse {
		return l.id, nil
	}
	// The lease lives ttl past the last object it is handed to.
	resp, err := l.client.Grant(ctx, int64((l.ttl + leaseReuse).Seconds()))
	if err != nil {
		return 0, err
	}
	l.id, l.granted = resp.ID, time.Now()
	return l.id, nil
}
