package storage

import (
	"context"
	"sort"
	"strings"
	"sync"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"
)

// watchBuffer is how many events a watcher may fall behind before it is
// closed; a client then resumes from the last resourceVersion it saw, as
// client-go's reflectors do.
const watchBuffer = 4096

// Watch is a stream of events for one client.
type Watch struct {
	// Initial are the events to send first: the synthetic ADDED events of a
	// watch that starts with the current state, or the history a resumed
	// watch missed.
	Initial []Event
	// Events carries later events; it is closed when the watch ends. An
	// event of type watch.Error carries Err.
	Events <-chan Event
	// Rev is the revision the watch is current at when it starts.
	Rev       int64
	stop      func()
	fromCache bool
}

// Stop ends the watch and releases it.
func (w *Watch) Stop() { w.stop() }

// filter decides which objects a watch sees.
type filter struct {
	prefix string
	match  func(*Object) bool
}

// translate turns a change into what a filtered watcher sees: an object that
// starts matching is ADDED, one that stops matching is DELETED.
func (f filter) translate(ev Event) (Event, bool) {
	if !strings.HasPrefix(ev.Key, f.prefix) {
		return ev, false
	}
	switch ev.Type {
	case watch.Added:
		return ev, f.match(ev.Object)
	case watch.Deleted:
		return ev, f.match(ev.Prev)
	}
	now, before := f.match(ev.Object), ev.Prev != nil && f.match(ev.Prev)
	switch {
	case now && before:
		return ev, true
	case now:
		return Event{Type: watch.Added, Object: ev.Object, Key: ev.Key}, true
	case before:
		return Event{Type: watch.Deleted, Object: ev.Object, Prev: ev.Prev, Key: ev.Key}, true
	}
	return ev, false
}

// cacheWatcher receives a cache's events.
type cacheWatcher struct {
	filter
	ch     chan Event
	closed bool
}

// send hands the watcher an event; it returns false, closing the watcher,
// when the watcher has fallen too far behind.
func (w *cacheWatcher) send(ev Event) bool {
	ev, ok := w.translate(ev)
	if !ok {
		return true
	}
	select {
	case w.ch <- ev:
		return true
	default:
		w.close()
		return false
	}
}

func (w *cacheWatcher) close() {
	if !w.closed {
		w.closed = true
		close(w.ch)
	}
}

// watch starts a watch served from the cache. With initial, it starts from
// the current state (as synthetic ADDED events); otherwise from the events
// after rev, which must be no newer than the cache. It returns false when
// the history no longer holds those events.
func (c *cache) watch(f filter, rev int64, initial bool) (*Watch, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := &cacheWatcher{filter: f, ch: make(chan Event, watchBuffer)}
	out := &Watch{Events: w.ch, Rev: c.rev, fromCache: true}
	if initial {
		out.Initial = c.snapshot(f)
	} else {
		events, ok := c.history.since(rev)
		if !ok {
			return nil, false
		}
		for _, ev := range events {
			if ev, ok := f.translate(ev); ok {
				out.Initial = append(out.Initial, ev)
			}
		}
	}
	c.watchers[w] = struct{}{}
	out.stop = func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.watchers, w)
		w.close()
	}
	return out, true
}

// snapshot returns ADDED events for every matching object, in key order.
// Callers hold c.mu.
func (c *cache) snapshot(f filter) []Event {
	var keys []string
	for key, obj := range c.objects {
		if strings.HasPrefix(key, f.prefix) && f.match(obj) {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	out := make([]Event, len(keys))
	for i, key := range keys {
		out[i] = Event{Type: watch.Added, Object: c.objects[key], Key: key}
	}
	return out
}

// watchEtcd serves a watch that resumes from a revision older than the
// cache's history straight from etcd. A compacted revision ends it with a
// 410 Expired error event, as kube-apiserver answers.
func watchEtcd(ctx context.Context, client *clientv3.Client, f filter, rev int64, v *versions) *Watch {
	ctx, cancel := context.WithCancel(ctx)
	ch := make(chan Event, watchBuffer)
	var once sync.Once
	go func() {
		defer once.Do(func() { close(ch) })
		wch := client.Watch(ctx, f.prefix, clientv3.WithPrefix(), clientv3.WithRev(rev+1), clientv3.WithPrevKV())
		for resp := range wch {
			if err := resp.Err(); err != nil {
				ch <- Event{Type: watch.Error, Err: watchError(err, rev)}
				return
			}
			for _, e := range resp.Events {
				ev, ok := etcdEvent(e, v)
				if !ok {
					continue
				}
				if ev, ok := f.translate(ev); ok {
					select {
					case ch <- ev:
					case <-ctx.Done():
						return
					}
				}
			}
		}
	}()
	return &Watch{Events: ch, Rev: rev, stop: cancel}
}

// etcdEvent converts one etcd event.
func etcdEvent(e *clientv3.Event, v *versions) (Event, bool) {
	key := string(e.Kv.Key)
	var prev *Object
	if e.PrevKv != nil {
		prev, _ = v.decode(e.PrevKv.Value, e.PrevKv.ModRevision)
	}
	if e.Type == clientv3.EventTypeDelete {
		if prev == nil {
			return Event{}, false
		}
		gone, err := prev.withRevision(e.Kv.ModRevision)
		return Event{Type: watch.Deleted, Object: gone, Prev: prev, Key: key}, err == nil
	}
	obj, err := v.decode(e.Kv.Value, e.Kv.ModRevision)
	if err != nil {
		return Event{}, false
	}
	if e.IsCreate() {
		return Event{Type: watch.Added, Object: obj, Key: key}, true
	}
	return Event{Type: watch.Modified, Object: obj, Prev: prev, Key: key}, true
}

func watchError(err error, rev int64) error {
	if err == rpctypes.ErrCompacted {
		return apierrors.NewResourceExpired("too old resource version: " + itoa(rev))
	}
	return internalError(err)
}
