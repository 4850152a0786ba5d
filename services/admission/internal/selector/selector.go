// Package selector is kube's namespaceSelector and objectSelector checks,
// which admission webhooks and admission policies both apply (kube's
// webhook and policy matchers share one namespace matcher too), and the
// namespace lookup they need: the informer's copy, else a live read.
package selector

import (
	"context"
	"encoding/json"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// Namespaces finds a request's namespace: from the informer, and from the
// API when the informer has not seen it yet (a namespace created a moment
// ago).
type Namespaces struct {
	Lister corev1listers.NamespaceLister
	// Client reads a namespace the informer has not seen; nil reads
	// none (NotFound stands).
	Client kubernetes.Interface
}

// Get is the named namespace.
func (n Namespaces) Get(ctx context.Context, name string) (*corev1.Namespace, error) {
	ns, err := n.Lister.Get(name)
	if apierrors.IsNotFound(err) && n.Client != nil {
		ns, err = n.Client.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	}
	return ns, err
}

// IsNamespace tells a request about a namespace itself (or one of its
// subresources), which carries its own name as its namespace.
func IsNamespace(a *admission.Attributes) bool {
	return a.Resource.Group == "" && a.Resource.Resource == "namespaces"
}

// Match is kube's namespaceSelector check. A cluster-scoped object other
// than a namespace is always selected. A namespace being created or
// updated is judged by its new labels, any other request by its
// namespace's stored labels; a namespace that does not exist is an error
// (NotFound, as kube answers).
func (n Namespaces) Match(ctx context.Context, sel labels.Selector, a *admission.Attributes) (bool, error) {
	if a.Namespace == "" && !IsNamespace(a) {
		return true, nil
	}
	if sel.Empty() {
		return true, nil
	}
	if IsNamespace(a) && a.SubResource == "" && (a.Operation == admissionv1.Create || a.Operation == admissionv1.Update) {
		return sel.Matches(labels.Set(ObjectLabels(a.Object.Raw))), nil
	}
	ns, err := n.Get(ctx, a.Namespace)
	if err != nil {
		return false, err
	}
	return sel.Matches(labels.Set(ns.Labels)), nil
}

// Object is kube's objectSelector check: the new or the old object's
// labels match (a label removed on update still selects it).
func Object(sel labels.Selector, a *admission.Attributes) bool {
	if sel.Empty() {
		return true
	}
	for _, raw := range [][]byte{a.Object.Raw, a.OldObject.Raw} {
		if len(raw) > 0 && sel.Matches(labels.Set(ObjectLabels(raw))) {
			return true
		}
	}
	return false
}

// ObjectLabels are metadata.labels of an object's JSON; none when it has
// none or is not an object.
func ObjectLabels(raw []byte) map[string]string {
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
