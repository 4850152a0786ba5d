package lifecycle

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// forceLiveLookupTTL is how long after a namespace DELETE creates in it are
// checked against the API rather than the informer: kube's value.
const forceLiveLookupTTL = 30 * time.Second

// namespace is the namespace a create goes to. The informer answers when
// it can be trusted; the API is asked when the informer does not know the
// namespace (it may have just been created: kube sleeps and asks again,
// this asks the API at once) or shows it Active although this replica
// admitted its deletion recently. A namespace the API does not have is a
// NotFound StatusError, as kube answers.
func (l *lifecycle) namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	if err := plugin.WaitSynced(ctx, l.synced); err != nil {
		return nil, err
	}
	ns, err := l.namespaces.Get(name)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return nil, err
	case ns.Status.Phase == corev1.NamespaceActive && l.deleted.has(name):
	default:
		return ns, nil
	}
	return l.client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
}

// recentSet is a set of names that each expire ttl after they were added.
type recentSet struct {
	mu    sync.Mutex
	ttl   time.Duration
	until map[string]time.Time
}

func newRecentSet(ttl time.Duration) *recentSet {
	return &recentSet{ttl: ttl, until: map[string]time.Time{}}
}

// add records name, dropping expired names so the set stays small.
func (s *recentSet) add(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	for n, t := range s.until {
		if now.After(t) {
			delete(s.until, n)
		}
	}
	s.until[name] = now.Add(s.ttl)
}

func (s *recentSet) has(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.until[name]
	return ok && time.Now().Before(t)
}
