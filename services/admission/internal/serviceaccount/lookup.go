package serviceaccount

import (
	"context"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// defaultAttempts is how often the API is asked for the default service
// account before giving up: a controller creates it right after the
// namespace, so kube waits for it a little (10 tries, 100-200ms apart).
const defaultAttempts = 10

// get reads the account from the informer, and from the API when the
// informer does not have it (it may have just been created). A NotFound
// StatusError (kube's message) means it does not exist; any other error
// means no answer.
func (p *saPlugin) get(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	if err := plugin.WaitSynced(ctx, p.synced); err != nil {
		return nil, err
	}
	sa, err := p.accounts.ServiceAccounts(namespace).Get(name)
	if !apierrors.IsNotFound(err) {
		return sa, err
	}
	attempts := 1
	if name == DefaultServiceAccountName {
		attempts = defaultAttempts
	}
	interval := time.Duration(100+rand.IntN(100)) * time.Millisecond
	for i := 0; i < attempts; i++ {
		if i > 0 && !sleep(ctx, interval) {
			return nil, ctx.Err()
		}
		sa, err := p.client.CoreV1().ServiceAccounts(namespace).Get(ctx, name, metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return sa, err
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "serviceaccounts"}, name)
}

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
