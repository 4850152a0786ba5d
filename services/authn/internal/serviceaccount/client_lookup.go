package serviceaccount

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/pkg/authn"
)

// clientLookup reads each account from the API server.
type clientLookup struct {
	client kubernetes.Interface
}

// NewClientLookup returns a Lookup that reads the account through client on
// every call. The TokenRequest handler wants it rather than an informer: an
// account created a moment ago must be found ("kubectl create sa" then
// "kubectl create token"), and the registry's reads are consistent while a
// watch may lag behind.
func NewClientLookup(client kubernetes.Interface) (Lookup, error) {
	if client == nil {
		return nil, fmt.Errorf("%w: client lookup needs a client", authn.ErrInvalidConfig)
	}
	return &clientLookup{client: client}, nil
}

// ServiceAccount gets the account; NotFound means it does not exist, any
// other error that the lookup failed.
func (l *clientLookup) ServiceAccount(ctx context.Context, namespace, name string) (string, bool, error) {
	sa, err := l.client.CoreV1().ServiceAccounts(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return "", false, nil
	case err != nil:
		return "", false, fmt.Errorf("serviceaccount: get %s/%s: %w", namespace, name, err)
	case sa.DeletionTimestamp != nil:
		return "", false, nil
	}
	return string(sa.UID), true, nil
}
