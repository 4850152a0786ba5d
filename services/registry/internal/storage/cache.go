package storage

import (
	"context"
	"fmt"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/watch"
)

// historySize is how many recent events a cache keeps so that watches can
// resume from a recent resourceVersion without going to etcd. A watch from
// further back is served by etcd itself, so this trades memory for etcd
// load, never correctness.
const historySize = 1024

// freshWait is how long a read waits for the cache to reach the revision it
// needs; progressRetry how often it asks etcd again meanwhile.
const (
	freshWait     = 3 * time.Second
	progressRetry = 100 * time.Millisecond
)

// Event is one change to a resource, as the cache saw it.
type Event struct {
	Type watch.EventType // Added, Modified, Deleted, or Error (with Err)
	// Object is the new state; for Deleted, the last state stamped with the
	// revision of the delete.
	Object *Object
	// Prev is the state before a Modified or Deleted, so that a filtered
	// watch can tell an object moving out of its selector.
	Prev *Object
	Key  string
	Err  error
}

// cache mirrors one resource's keys in memory. It is fed by a single etcd
// watch and serves gets, lists and watches.
type cache struct {
	prefix string
	client *clientv3.Client

	mu       sync.RWMutex
	objects  map[string]*Object
	dirs     dirIndex      // objects by key directory, kept with objects
	rev      int64         // every change up to rev has been applied
	advanced chan struct{} // closed and replaced whenever rev grows
	history  *history
	watchers map[*cacheWatcher]struct{}
	ready    chan struct{}
	versions *versions // see StoreOptions.StorageVersion
}

func newCache(client *clientv3.Client, prefix string) *cache {
	return &cache{
		prefix:   prefix,
		client:   client,
		objects:  map[string]*Object{},
		dirs:     dirIndex{},
		advanced: make(chan struct{}),
		history:  newHistory(historySize),
		watchers: map[*cacheWatcher]struct{}{},
		ready:    make(chan struct{}),
	}
}

// run fills the cache and keeps it current until ctx ends, relisting when
// its watch breaks (for example after the revision it watched from was
// compacted away).
func (c *cache) run(ctx context.Context) {
	readyOnce := sync.Once{}
	for ctx.Err() == nil {
		rev, err := c.relist(ctx)
		if err != nil {
			slog.Warn("cache list failed", "prefix", c.prefix, "err", err)
			sleep(ctx, time.Second)
			continue
		}
		readyOnce.Do(func() { close(c.ready) })
		c.follow(ctx, rev)
	}
}

// relist replaces the cache's contents with what etcd holds now. Watchers
// get the difference as events, so none of them misses a change.
func (c *cache) relist(ctx context.Context) (int64, error) {
	fresh, rev, err := c.load(ctx)
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var diff []Event
	for key, old := range c.objects {
		if _, ok := fresh[key]; !ok {
			gone, _ := old.withRevision(rev)
			diff = append(diff, Event{Type: watch.Deleted, Object: gone, Prev: old, Key: key})
		}
	}
	for key, obj := range fresh {
		old, ok := c.objects[key]
		switch {
		case !ok:
			diff = append(diff, Event{Type: watch.Added, Object: obj, Key: key})
		case old.Rev != obj.Rev:
			diff = append(diff, Event{Type: watch.Modified, Object: obj, Prev: old, Key: key})
		}
	}
	// In revision order, so that a watcher resuming from the last revision
	// it saw misses nothing and gets nothing twice.
	sort.SliceStable(diff, func(i, j int) bool { return diff[i].Object.Rev < diff[j].Object.Rev })
	for _, ev := range diff {
		c.record(ev)
	}
	c.objects, c.dirs = fresh, indexOf(fresh)
	c.history.start(rev)
	c.advance(rev)
	return rev, nil
}

// relistPage is how many keys one range of a relist reads: whole-prefix
// reads of a large resource would cost a transient allocation of its full
// size, on top of the cache being filled.
const relistPage = 500

// load reads every object under the prefix, page by page at one revision.
func (c *cache) load(ctx context.Context) (map[string]*Object, int64, error) {
	fresh := map[string]*Object{}
	rev, err := scan(ctx, c.client, c.prefix, clientv3.GetPrefixRangeEnd(c.prefix), 0, relistPage,
		func(kv *mvccpb.KeyValue, _ bool, _ int64) bool {
			obj, err := c.versions.decode(kv.Value, kv.ModRevision)
			if err != nil {
				slog.Error("skipping undecodable object", "key", string(kv.Key), "err", err)
				return false
			}
			fresh[string(kv.Key)] = obj
			return false
		})
	if err != nil {
		return nil, 0, err
	}
	return fresh, rev, nil
}

// follow applies etcd's events after rev until the watch ends.
func (c *cache) follow(ctx context.Context, rev int64) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := c.client.Watch(wctx, c.prefix, clientv3.WithPrefix(), clientv3.WithRev(rev+1),
		clientv3.WithPrevKV(), clientv3.WithProgressNotify())
	for resp := range ch {
		if err := resp.Err(); err != nil {
			slog.Warn("cache watch ended", "prefix", c.prefix, "err", err)
			return
		}
		if resp.IsProgressNotify() {
			c.mu.Lock()
			c.advance(resp.Header.Revision)
			c.mu.Unlock()
			continue
		}
		c.apply(resp.Events)
	}
}

// apply records a batch of etcd events.
func (c *cache) apply(events []*clientv3.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var last int64
	for _, ev := range events {
		key := string(ev.Kv.Key)
		last = ev.Kv.ModRevision
		old := c.objects[key]
		if ev.Type == clientv3.EventTypeDelete {
			if old == nil {
				continue
			}
			delete(c.objects, key)
			c.dirs.remove(key)
			gone, err := old.withRevision(last)
			if err == nil {
				c.record(Event{Type: watch.Deleted, Object: gone, Prev: old, Key: key})
			}
			continue
		}
		obj, err := c.versions.decode(ev.Kv.Value, last)
		if err != nil {
			slog.Error("skipping undecodable object", "key", key, "err", err)
			continue
		}
		c.objects[key] = obj
		c.dirs.put(key, obj)
		if old == nil {
			c.record(Event{Type: watch.Added, Object: obj, Key: key})
		} else {
			c.record(Event{Type: watch.Modified, Object: obj, Prev: old, Key: key})
		}
	}
	c.advance(last)
}

// record appends an event to the history and hands it to the watchers.
// Callers hold c.mu.
func (c *cache) record(ev Event) {
	c.history.add(ev)
	for w := range c.watchers {
		if !w.send(ev) {
			delete(c.watchers, w)
		}
	}
}

// advance moves the cache's revision forward. Callers hold c.mu.
func (c *cache) advance(rev int64) {
	if rev <= c.rev {
		return
	}
	c.rev = rev
	close(c.advanced)
	c.advanced = make(chan struct{})
}

// waitUntil blocks until the cache has applied every change up to rev, or
// answers 504 after freshWait as kube-apiserver does for a resourceVersion
// it cannot reach. It asks etcd for progress notifications, since a
// resource that is not changing gets no events to move its revision.
func (c *cache) waitUntil(ctx context.Context, rev int64, progress func()) error {
	deadline := time.NewTimer(freshWait)
	defer deadline.Stop()
	select {
	case <-c.ready:
	case <-ctx.Done():
		return ctx.Err()
	case <-deadline.C:
		return apierrors.NewTimeoutError("storage is not ready", 1)
	}
	retry := time.NewTicker(progressRetry)
	defer retry.Stop()
	for {
		c.mu.RLock()
		cur, advanced := c.rev, c.advanced
		c.mu.RUnlock()
		if cur >= rev {
			return nil
		}
		progress()
		select {
		case <-advanced:
		case <-retry.C:
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", rev, cur), 1)
		}
	}
}

// get returns the cached object at key.
// len is how many objects the cache holds.
func (c *cache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.objects)
}

func (c *cache) get(key string) (*Object, int64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.objects[key], c.rev
}

// any reports whether the cache holds an object under prefix.
func (c *cache) any(prefix string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if len(c.dirs[prefix]) > 0 {
		return true
	}
	if prefix == dir(prefix) && prefix != c.prefix {
		// A namespace's directory holds all its objects: an empty one
		// holds none, and nothing else needs looking at.
		return false
	}
	for key := range c.objects {
		if strings.HasPrefix(key, prefix) {
			return true
		}
	}
	return false
}

// list returns the cached objects under prefix that match, sorted by key,
// and the revision they are current at.
func (c *cache) list(prefix string, match func(*Object) bool) ([]*Object, int64) {
	c.mu.RLock()
	// A namespace's (or a cluster-scoped resource's) directory is read
	// alone; a list across namespaces reads everything.
	candidates, whole := c.dirs[prefix], false
	if candidates == nil && prefix != dir(prefix) || prefix == c.prefix {
		candidates, whole = c.objects, true
	}
	keys := make([]string, 0, len(candidates))
	for key, obj := range candidates {
		if (!whole || strings.HasPrefix(key, prefix)) && match(obj) {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	out := make([]*Object, len(keys))
	for i, key := range keys {
		out[i] = candidates[key]
	}
	rev := c.rev
	c.mu.RUnlock()
	return out, rev
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
