// Package serviceaccount is the service account controller: every
// namespace that is not being deleted has a ServiceAccount named "default",
// created when the namespace appears and again whenever it is deleted.
package serviceaccount

import (
	"context"
	"errors"
	"log/slog"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/pernamespace"
)

// DefaultName is the service account every namespace gets.
const DefaultName = "default"

// Options are what the controller needs.
type Options struct {
	// Client watches namespaces and creates service accounts. Required.
	Client kubernetes.Interface
	// Log receives the controller's logs; nil means slog.Default().
	Log *slog.Logger
}

// Controller keeps a "default" ServiceAccount in every live namespace.
type Controller struct {
	*pernamespace.Controller
	client kubernetes.Interface
	log    *slog.Logger
}

// New builds a controller; nothing runs until Run.
func New(o Options) (*Controller, error) {
	if o.Client == nil {
		return nil, errors.New("serviceaccount controller: Client is required")
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	c := &Controller{client: o.Client, log: o.Log}
	var err error
	c.Controller, err = pernamespace.New(pernamespace.Options{
		Name: "serviceaccount", Client: o.Client, NewInformer: coreinformers.NewFilteredServiceAccountInformer, ObjectName: DefaultName, Sync: c.sync, Log: o.Log,
	})
	return c, err
}

// sync creates the namespace's default account if it is missing; an
// account that exists is left as it is.
func (c *Controller) sync(ctx context.Context, namespace string, existing any) error {
	if existing != nil {
		return nil
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: DefaultName, Namespace: namespace}}
	if _, err := c.client.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		return err
	}
	c.log.Info("created service account", "namespace", namespace, "name", DefaultName)
	return nil
}
