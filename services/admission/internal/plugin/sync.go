package plugin

import (
	"context"
	"errors"
	"time"

	"k8s.io/client-go/tools/cache"
)

// ErrNotReady is what a plugin answers (no decision; the caller fails
// closed) while its informers have not synced, as kube's plugins refuse to
// decide before their caches are warm.
var ErrNotReady = errors.New("admission plugin: informers not synced yet")

// SyncWait bounds how long a request waits for a plugin's informers to
// sync, as kube's WaitForReady does (10 seconds).
const SyncWait = 10 * time.Second

// WaitSynced waits up to SyncWait (or ctx) for every synced func to be
// true; ErrNotReady when they are not.
func WaitSynced(ctx context.Context, synced ...cache.InformerSynced) error {
	if allSynced(synced) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, SyncWait)
	defer cancel()
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		return ErrNotReady
	}
	return nil
}

func allSynced(synced []cache.InformerSynced) bool {
	for _, s := range synced {
		if !s() {
			return false
		}
	}
	return true
}
