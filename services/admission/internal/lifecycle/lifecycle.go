// Package lifecycle is the NamespaceLifecycle admission plugin, as kube's
// plugin/pkg/admission/namespace/lifecycle: no new content in a namespace
// being terminated, and the system namespaces cannot be deleted.
package lifecycle

import (
	"context"
	"errors"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "NamespaceLifecycle"

// immortal are the namespaces kube-apiserver never lets be deleted.
var immortal = sets.New(metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic)

// lifecycle is the plugin; it only validates.
type lifecycle struct {
	client     kubernetes.Interface
	namespaces corelisters.NamespaceLister
	synced     cache.InformerSynced
	// deleted remembers namespaces this replica saw a DELETE for: the
	// informer may still show them Active for a moment, so creates in them
	// are checked against the API instead.
	deleted *recentSet
}

// New registers a namespace informer on deps.Informers.
func New(deps plugin.Deps) (admission.Admitter, error) {
	if deps.Client == nil || deps.Informers == nil {
		return nil, fmt.Errorf("%w: %s needs a client and informers", admission.ErrInvalidConfig, Name)
	}
	inf := deps.Informers.Core().V1().Namespaces()
	return &lifecycle{
		client:     deps.Client,
		namespaces: inf.Lister(),
		synced:     inf.Informer().HasSynced,
		deleted:    newRecentSet(forceLiveLookupTTL),
	}, nil
}

// Admit implements admission.Admitter.
func (l *lifecycle) Admit(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	if isNamespace(a) {
		return l.admitNamespace(a), nil
	}
	// Only creates are refused: updates and deletes in a terminating
	// namespace are how its content goes away. Cluster-scoped objects and
	// access reviews (never stored) have no namespace to be in.
	if a.Operation != admissionv1.Create || a.Namespace == "" || isAccessReview(a) {
		return admission.Allow(), nil
	}
	ns, err := l.namespace(ctx, a.Namespace)
	if err != nil {
		var status *apierrors.StatusError
		if errors.As(err, &status) && apierrors.IsNotFound(err) {
			return plugin.StatusResult(status), nil
		}
		return nil, err
	}
	if ns.Status.Phase != corev1.NamespaceTerminating {
		return admission.Allow(), nil
	}
	return terminating(a), nil
}

// admitNamespace refuses deleting a system namespace and remembers other
// deletes.
func (l *lifecycle) admitNamespace(a *admission.Attributes) *admission.Result {
	if a.Operation != admissionv1.Delete {
		return admission.Allow()
	}
	if immortal.Has(a.Name) {
		return plugin.Forbidden(a, errors.New("this namespace may not be deleted"))
	}
	l.deleted.add(a.Name)
	return admission.Allow()
}

// terminating is kube's denial of a create in a terminating namespace,
// with its NamespaceTerminating cause, which clients (the namespace
// controller, kubectl) recognise.
func terminating(a *admission.Attributes) *admission.Result {
	res := plugin.Forbidden(a, fmt.Errorf("unable to create new content in namespace %s because it is being terminated", a.Namespace))
	if res.Status.Details == nil {
		res.Status.Details = &metav1.StatusDetails{}
	}
	res.Status.Details.Causes = append(res.Status.Details.Causes, metav1.StatusCause{
		Type:    corev1.NamespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", a.Namespace),
		Field:   "metadata.namespace",
	})
	return res
}

// isNamespace matches requests about namespaces themselves, by kind as
// kube does, or by resource.
func isNamespace(a *admission.Attributes) bool {
	return (a.Kind.Group == "" && a.Kind.Kind == "Namespace") || (plugin.IsResource(a, "", "namespaces") && a.SubResource == "")
}

// isAccessReview matches the reviews kube's plugin lets through whatever
// the namespace's state: they are answered, never stored.
func isAccessReview(a *admission.Attributes) bool {
	return plugin.IsResource(a, "authorization.k8s.io", "localsubjectaccessreviews")
}
