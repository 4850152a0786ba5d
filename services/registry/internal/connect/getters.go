package connect

import (
	"context"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"

	"github.com/kubesplit/kubesplit/services/registry/internal/kubelet"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// podGetter reads pods of one namespace as kube's Location functions
// want them: internal objects.
type podGetter struct {
	pods      *storage.Store
	namespace string
}

// Get implements kube's pod.ResourceGetter.
func (g podGetter) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	obj, err := g.pods.Get(ctx, g.namespace, name, storage.ReadOptions{})
	if err != nil {
		return nil, err
	}
	pod := &corev1.Pod{}
	if err := json.Unmarshal(obj.JSON, pod); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	internal := &api.Pod{}
	if err := legacyscheme.Scheme.Convert(pod, internal, nil); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return internal, nil
}

// NodeGetter reads Nodes from a store, for package kubelet.
func NodeGetter(nodes *storage.Store) kubelet.NodeGetter {
	return func(ctx context.Context, name string) (*corev1.Node, error) {
		obj, err := nodes.Get(ctx, "", name, storage.ReadOptions{})
		if err != nil {
			return nil, err
		}
		return kubelet.DecodeNode(obj.JSON)
	}
}
