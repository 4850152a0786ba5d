package webhooks

import (
	"context"
	"encoding/json"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// namespaces finds the labels of a request's namespace for
// namespaceSelectors: from the informer, and from the API when the
// informer has not seen it yet (a namespace created a moment ago).
type namespaces struct {
	lister corev1listers.NamespaceLister
	client kubernetes.Interface
}

// isNamespace tells a request about a namespace itself, which carries its
// own name as its namespace.
func isNamespace(a *admission.Attributes) bool {
	return a.Resource.Group == "" && a.Resource.Resource == "namespaces"
}

// matchNamespace is kube's namespaceSelector check. A cluster-scoped
// object other than a namespace is always selected. A namespace being
// created or updated is judged by its new labels, any other request by its
// namespace's stored labels; a namespace that does not exist is an error
// (NotFound, as kube answers).
func (n *namespaces) matchNamespace(ctx context.Context, sel labels.Selector, a *admission.Attributes) (bool, error) {
	if a.Namespace == "" && !isNamespace(a) {
		return true, nil
	}
	if sel.Empty() {
		return true, nil
	}
	if isNamespace(a) && a.SubResource == "" && (a.Operation == admissionv1.Create || a.Operation == admissionv1.Update) {
		return sel.Matches(labels.Set(objectLabels(a.Object.Raw))), nil
	}
	ns, err := n.lister.Get(a.Namespace)
	if apierrors.IsNotFound(err) {
		ns, err = n.client.CoreV1().Namespaces().Get(ctx, a.Namespace, metav1.GetOptions{})
	}
	if err != nil {
		return false, err
	}
	return sel.Matches(labels.Set(ns.Labels)), nil
}

// matchObject is kube's objectSelector check: the new or the old object's
// labels match.
func matchObject(sel labels.Selector, a *admission.Attributes) bool {
	if sel.Empty() {
		return true
	}
	for _, raw := range [][]byte{a.Object.Raw, a.OldObject.Raw} {
		if len(raw) > 0 && sel.Matches(labels.Set(objectLabels(raw))) {
			return true
		}
	}
	return false
}

// objectLabels are metadata.labels of an object's JSON; none when it has
// none or is not an object.
func objectLabels(raw []byte) map[string]string {
	var obj struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return obj.Metadata.Labels
}
