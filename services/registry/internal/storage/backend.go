package storage

import (
	"cmp"
	"context"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// Backend holds the stores of every resource over one etcd client.
type Backend struct {
	ctx     context.Context
	client  *clientv3.Client
	revs    *revisions
	metrics *metrics
	lists   *byteBudget // shared by every store
}

// NewBackend returns a backend whose caches run until ctx ends.
func NewBackend(ctx context.Context, client *clientv3.Client) *Backend {
	return &Backend{ctx: ctx, client: client, revs: newRevisions(client), metrics: newMetrics(),
		lists: newByteBudget(DefaultListBudget)}
}

// StoreOptions tune one store.
type StoreOptions struct {
	// TTL, when set, makes etcd delete each object that long after its
	// last write (kube's --event-ttl).
	TTL time.Duration
	// StorageVersion, when set and not the version the store serves, is
	// the apiVersion objects are kept at in etcd (a custom resource's
	// storage version); they are served with their apiVersion rewritten.
	StorageVersion string
	// Convert, when set, converts an object to another apiVersion between
	// the two (a conversion webhook); nil rewrites apiVersion alone.
	Convert Converter
	// Read, when set, is applied to every object read from etcd, after
	// conversion: kube's decoder prunes and defaults a custom resource
	// with the served version's schema, so a default added to the schema
	// shows on objects stored before it.
	Read func(obj *unstructured.Unstructured)
}

// Converter returns obj converted to apiVersion; it may modify obj.
type Converter func(obj map[string]any, apiVersion string) (map[string]any, error)

// NewStore starts the cache of a resource and returns its store.
func (b *Backend) NewStore(info *resource.Info, opts StoreOptions) *Store {
	return b.newStore(b.ctx, info, opts)
}

func (b *Backend) newStore(ctx context.Context, info *resource.Info, opts StoreOptions) *Store {
	s := &Store{info: info, client: b.client, cache: newCache(b.client, info.KeyPrefix()), revs: b.revs,
		versions: newVersions(info.APIVersion(), cmp.Or(opts.StorageVersion, info.StorageVersion()), storeConverter(info, opts), opts.Read),
		etcd:     b.metrics.timers(info.Group, info.Resource), lists: b.lists}
	s.cache.versions = s.versions
	if opts.TTL > 0 {
		s.leases = &leases{client: b.client, ttl: opts.TTL}
	}
	go s.cache.run(ctx)
	b.metrics.add(s)
	return s
}

// Ready reports whether the store's cache has been filled.
func (s *Store) Ready() bool {
	select {
	case <-s.cache.ready:
		return true
	default:
		return false
	}
}

// WatchOptions say where a watch starts and what it sees.
type WatchOptions struct {
	ReadOptions
	Selector
	// SendInitialEvents asks for the current state first, even when a
	// resourceVersion is given; nil leaves it to the resourceVersion.
	SendInitialEvents *bool
}

// Watch starts a watch on namespace ("" for all). Without a resourceVersion
// (or with "0") it starts with the current state as ADDED events; with one,
// it sends every change after it, exactly once and in order, from the
// cache's history or, when that no longer reaches back, from etcd.
func (s *Store) Watch(ctx context.Context, namespace string, opts WatchOptions) (*Watch, error) {
	rv, f, err := s.query(namespace, opts.ReadOptions, opts.Selector)
	if err != nil {
		return nil, err
	}
	latest := opts.ResourceVersion == "" || opts.ResourceVersion == "0"
	initial := latest
	if opts.SendInitialEvents != nil {
		initial = *opts.SendInitialEvents
	}
	if err := s.waitFor(ctx, opts.ResourceVersion, rv); err != nil {
		return nil, err
	}
	if latest || initial {
		w, _ := s.cache.watch(f, s.cacheRev(), initial)
		return w, nil
	}
	if w, ok := s.cache.watch(f, rv, false); ok {
		return w, nil
	}
	if rv == 0 {
		return nil, apierrors.NewBadRequest("invalid resource version")
	}
	return watchEtcd(ctx, s.client, f, rv, s.versions), nil
}

// WatchRevision is the revision up to which a watch served from the cache
// has been handed every event; false for watches served from etcd.
func (s *Store) WatchRevision(w *Watch) (int64, bool) {
	return s.cacheRev(), w.fromCache
}

func (s *Store) cacheRev() int64 {
	_, rev := s.cache.get("")
	return rev
}

// storeConverter is the store's Converter: the options', else the
// resource's own.
func storeConverter(info *resource.Info, opts StoreOptions) Converter {
	if opts.Convert != nil {
		return opts.Convert
	}
	return info.Convert
}
