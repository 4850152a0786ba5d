package quota

import (
	"context"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// liveTTL is how long a live list of a namespace's quotas stands in for
// the informer's when the informer knows none there (kube's is 30s). It
// only matters while the informer lags behind a quota just created.
const liveTTL = 10 * time.Second

// quotaSource is where admission and the controller read quotas: the
// informer, overlaid with the newest version this process wrote or read
// live (the informer catches up later), and a live list when the informer
// has none in the namespace yet, as kube's quota accessor does.
type quotaSource struct {
	client  kubernetes.Interface
	lister  corelisters.ResourceQuotaLister
	indexer cache.Indexer
	synced  cache.InformerSynced

	mu     sync.Mutex
	latest map[string]*corev1.ResourceQuota // by namespace/name
	live   map[string]liveList              // by namespace
}

type liveList struct {
	quotas  []*corev1.ResourceQuota
	expires time.Time
}

func newQuotaSource(client kubernetes.Interface, inf cache.SharedIndexInformer) *quotaSource {
	return &quotaSource{
		client:  client,
		lister:  corelisters.NewResourceQuotaLister(inf.GetIndexer()),
		indexer: inf.GetIndexer(),
		synced:  inf.HasSynced,
		latest:  map[string]*corev1.ResourceQuota{},
		live:    map[string]liveList{},
	}
}

// cached lists a namespace's quotas from the informer, each at the newest
// version this process knows.
func (s *quotaSource) cached(ns string) ([]*corev1.ResourceQuota, error) {
	items, err := s.lister.ResourceQuotas(ns).List(labels.Everything())
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*corev1.ResourceQuota, 0, len(items))
	seen := map[string]bool{}
	for _, q := range items {
		key := q.Namespace + "/" + q.Name
		seen[key] = true
		if l, ok := s.latest[key]; ok && newer(l, q) {
			q = l
		} else {
			delete(s.latest, key)
		}
		out = append(out, q.DeepCopy())
	}
	// Forget the versions of quotas the informer saw deleted.
	for key, l := range s.latest {
		if l.Namespace == ns && !seen[key] {
			delete(s.latest, key)
		}
	}
	return out, nil
}

// keys are the namespace/name of every quota the informer knows.
func (s *quotaSource) keys() []string {
	return s.indexer.ListKeys()
}

// list is what admission checks against: the cached quotas, or a live
// list while the informer is not synced or knows none in the namespace.
func (s *quotaSource) list(ctx context.Context, ns string) ([]*corev1.ResourceQuota, error) {
	if s.synced() {
		out, err := s.cached(ns)
		if err != nil || len(out) > 0 {
			return out, err
		}
	}
	s.mu.Lock()
	entry, ok := s.live[ns]
	s.mu.Unlock()
	if ok && time.Now().Before(entry.expires) && s.synced() {
		return copies(entry.quotas), nil
	}
	l, err := s.client.CoreV1().ResourceQuotas(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	entry = liveList{expires: time.Now().Add(liveTTL)}
	for i := range l.Items {
		entry.quotas = append(entry.quotas, &l.Items[i])
	}
	s.mu.Lock()
	for other, e := range s.live {
		if time.Now().After(e.expires) {
			delete(s.live, other)
		}
	}
	s.live[ns] = entry
	s.mu.Unlock()
	return copies(entry.quotas), nil
}

// get reads one quota live, after a conflict showed ours is stale.
func (s *quotaSource) get(ctx context.Context, ns, name string) (*corev1.ResourceQuota, error) {
	q, err := s.client.CoreV1().ResourceQuotas(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	s.remember(q)
	return q.DeepCopy(), nil
}

// updateStatus writes q's status at q's resourceVersion, so that a
// concurrent writer makes it fail with a Conflict instead of being
// overwritten.
func (s *quotaSource) updateStatus(ctx context.Context, q *corev1.ResourceQuota) (*corev1.ResourceQuota, error) {
	out, err := s.client.CoreV1().ResourceQuotas(q.Namespace).UpdateStatus(ctx, q, metav1.UpdateOptions{})
	if err != nil {
		return nil, err
	}
	s.remember(out)
	return out, nil
}

func (s *quotaSource) remember(q *corev1.ResourceQuota) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := q.Namespace + "/" + q.Name
	if l, ok := s.latest[key]; !ok || newer(q, l) {
		s.latest[key] = q.DeepCopy()
	}
	delete(s.live, q.Namespace)
}

// newer says whether a is a later version than b. Resource versions are
// etcd revisions here, as in kube, so they compare as numbers; one that
// does not parse is never newer.
func newer(a, b *corev1.ResourceQuota) bool {
	av, errA := strconv.ParseUint(a.ResourceVersion, 10, 64)
	bv, errB := strconv.ParseUint(b.ResourceVersion, 10, 64)
	return errA == nil && (errB != nil || av > bv)
}

func copies(qs []*corev1.ResourceQuota) []*corev1.ResourceQuota {
	out := make([]*corev1.ResourceQuota, len(qs))
	for i, q := range qs {
		out[i] = q.DeepCopy()
	}
	return out
}
