package serviceaccount

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/pkg/authn"
)

// InformerLookup is a Lookup answered from a watch-fed cache of every
// ServiceAccount, so that authenticating a token costs no request, and a
// deleted account is refused as soon as its watch event arrives.
type InformerLookup struct {
	informer cache.SharedIndexInformer
	lister   corelisters.ServiceAccountLister

	mu       sync.Mutex
	onDelete []func(namespace, name string)
}

var _ Lookup = (*InformerLookup)(nil)

// NewInformerLookup returns a Lookup that watches the ServiceAccounts of all
// namespaces through client, relisting every resync (zero: never). Call
// Start, then WaitForSync; until the first list is in, every lookup fails
// with ErrNotSynced.
func NewInformerLookup(client kubernetes.Interface, resync time.Duration) (*InformerLookup, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: informer lookup needs a client", authn.ErrInvalidConfig)
	}
	if resync < 0 {
		return nil, fmt.Errorf("%w: informer lookup resync must not be negative", authn.ErrInvalidConfig)
	}
	inf := coreinformers.NewServiceAccountInformer(client, metav1.NamespaceAll, resync,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	l := &InformerLookup{informer: inf, lister: corelisters.NewServiceAccountLister(inf.GetIndexer())}
	if err := inf.SetTransform(stripServiceAccount); err != nil {
		return nil, fmt.Errorf("serviceaccount: informer transform: %w", err)
	}
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: l.updated,
		DeleteFunc: l.deleted,
	}); err != nil {
		return nil, fmt.Errorf("serviceaccount: informer handler: %w", err)
	}
	return l, nil
}

// Start runs the informer until ctx is done. It returns at once.
func (l *InformerLookup) Start(ctx context.Context) {
	go l.informer.RunWithContext(ctx)
}

// HasSynced reports whether the first list has been loaded.
func (l *InformerLookup) HasSynced() bool { return l.informer.HasSynced() }

// WaitForSync blocks until the first list has been loaded, or ctx is done.
func (l *InformerLookup) WaitForSync(ctx context.Context) error {
	select {
	case <-l.informer.HasSyncedChecker().Done():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrNotSynced, ctx.Err())
	}
}

// OnDelete registers fn to be called with the namespace and name of every
// account that is deleted, or replaced by a new one of the same name, so
// that caches of authentication answers can be dropped. fn runs on the
// informer's goroutine and must not block. It may be called at any time.
func (l *InformerLookup) OnDelete(fn func(namespace, name string)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.onDelete = append(l.onDelete, fn)
}

// ServiceAccount answers from the cache. An account being deleted counts as
// gone: its tokens should not outlive the decision to delete it.
func (l *InformerLookup) ServiceAccount(_ context.Context, namespace, name string) (string, bool, error) {
	if !l.informer.HasSynced() {
		return "", false, ErrNotSynced
	}
	sa, err := l.lister.ServiceAccounts(namespace).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("serviceaccount: cache: %w", err)
	case sa.DeletionTimestamp != nil:
		return "", false, nil
	}
	return string(sa.UID), true, nil
}

// updated reports an account whose uid changed as deleted: that is a delete
// and re-create the watch missed, seen only when the informer relisted.
func (l *InformerLookup) updated(oldObj, newObj any) {
	o, ok1 := oldObj.(*corev1.ServiceAccount)
	n, ok2 := newObj.(*corev1.ServiceAccount)
	if ok1 && ok2 && (o.UID != n.UID || (o.DeletionTimestamp == nil && n.DeletionTimestamp != nil)) {
		l.notify(o.Namespace, o.Name)
	}
}

// deleted reports a deletion, including one the informer only learnt of by
// relisting, which arrives as a tombstone.
func (l *InformerLookup) deleted(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return
	}
	l.notify(namespace, name)
}

// notify calls every OnDelete hook.
func (l *InformerLookup) notify(namespace, name string) {
	l.mu.Lock()
	hooks := slices.Clone(l.onDelete)
	l.mu.Unlock()
	for _, fn := range hooks {
		fn(namespace, name)
	}
}

// stripServiceAccount drops what a lookup never reads (secrets, pull
// secrets, annotations, managed fields), so that the cache of every account
// in the cluster stays small.
func stripServiceAccount(obj any) (any, error) {
	sa, ok := obj.(*corev1.ServiceAccount)
	if !ok {
		return obj, nil
	}
	sa.Secrets = nil
	sa.ImagePullSecrets = nil
	sa.Annotations = nil
	sa.ManagedFields = nil
	return sa, nil
}
