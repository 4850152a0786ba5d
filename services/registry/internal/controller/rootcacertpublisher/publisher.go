// Package rootcacertpublisher is kube-controller-manager's
// root-ca-certificate-publisher-controller: every namespace that is not
// being deleted has a ConfigMap kube-root-ca.crt whose ca.crt is the CA
// bundle that verifies the API server, recreated when deleted and put
// right when edited, so a pod can trust kubernetes.default.svc.
package rootcacertpublisher

import (
	"context"
	"errors"
	"log/slog"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/pernamespace"
)

// kube's names and words for the ConfigMap (rootcacertpublisher).
const (
	// ConfigMapName is the ConfigMap every namespace gets.
	ConfigMapName = "kube-root-ca.crt"
	// DataKey holds the bundle.
	DataKey = "ca.crt"
	// DescriptionAnnotation says what the ConfigMap is for.
	DescriptionAnnotation = "kubernetes.io/description"
	// Description is kube's text of it.
	Description = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
		"No other usage is guaranteed across distributions of Kubernetes clusters."
)

// Options are what the publisher needs.
type Options struct {
	// Client watches namespaces and writes the ConfigMaps. Required.
	Client kubernetes.Interface
	// RootCA is the PEM bundle published. Required.
	RootCA []byte
	// Log receives the controller's logs; nil means slog.Default().
	Log *slog.Logger
}

// Publisher keeps kube-root-ca.crt in every live namespace.
type Publisher struct {
	*pernamespace.Controller
	client kubernetes.Interface
	data   map[string]string
}

// New builds a publisher; nothing runs until Run.
func New(o Options) (*Publisher, error) {
	if o.Client == nil || len(o.RootCA) == 0 {
		return nil, errors.New("root CA publisher: Client and RootCA are required")
	}
	p := &Publisher{client: o.Client, data: map[string]string{DataKey: string(o.RootCA)}}
	var err error
	p.Controller, err = pernamespace.New(pernamespace.Options{
		Name: "root-ca-cert-publisher", Client: o.Client, NewInformer: coreinformers.NewFilteredConfigMapInformer, ObjectName: ConfigMapName, Sync: p.sync, Log: o.Log,
	})
	return p, err
}

// sync creates the ConfigMap, or puts back its data and description as
// kube's publisher does; other labels and annotations are kept.
func (p *Publisher) sync(ctx context.Context, namespace string, existing any) error {
	cm, _ := existing.(*corev1.ConfigMap)
	if cm == nil {
		_, err := p.client.CoreV1().ConfigMaps(namespace).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName, Annotations: map[string]string{DescriptionAnnotation: Description}},
			Data:       maps.Clone(p.data),
		}, metav1.CreateOptions{})
		return err
	}
	if maps.Equal(cm.Data, p.data) && cm.Annotations[DescriptionAnnotation] != "" {
		return nil
	}
	cm = cm.DeepCopy()
	cm.Data = maps.Clone(p.data)
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[DescriptionAnnotation] = Description
	_, err := p.client.CoreV1().ConfigMaps(namespace).Update(ctx, cm, metav1.UpdateOptions{})
	return err
}
