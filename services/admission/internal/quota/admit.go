package quota

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubequota "k8s.io/apiserver/pkg/quota/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/kubeobject"
)

// request is one write as quota sees it.
type request struct {
	attrs *admission.Attributes
	gr    schema.GroupResource
	// ev is kube's evaluator of gr's objects.
	ev  kubequota.Evaluator
	obj runtime.Object
	// delta is what the write adds to the namespace's usage.
	delta corev1.ResourceList
	// old is the object an update replaces, nil on create; full is what
	// obj uses, all of it charged to a quota old was not in.
	old  runtime.Object
	full corev1.ResourceList
}

// requested is what the write adds to the usage q counts: the delta, or,
// for an update that brings the object into q's scope (a pod given an
// activeDeadlineSeconds, into a Terminating quota; a PVC given a
// VolumeAttributesClass), all it uses, as kube charges it.
func (r *request) requested(q *corev1.ResourceQuota) (corev1.ResourceList, error) {
	if r.old == nil {
		return r.delta, nil
	}
	was, err := inScope(q, r.ev, r.old)
	if err != nil || was {
		return r.delta, err
	}
	return r.full, nil
}

// mayMoveScope reports whether an update may bring its object into a
// quota's scope although it adds nothing to the namespace's usage.
func (r *request) mayMoveScope() bool {
	return r.old != nil && slices.Contains(scoped, r.gr)
}

// Admit charges a write to the quotas of its namespace, or refuses it.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	if !p.handles(a) {
		return admission.Allow(), nil
	}
	req, denial := p.newRequest(a)
	if denial != nil || (len(req.delta) == 0 && !req.mayMoveScope()) {
		return orAllow(denial), nil
	}
	// Most namespaces have no quota: answer them without taking the lock.
	quotas, err := p.quotas.list(ctx, a.Namespace)
	if err != nil || len(quotas) == 0 {
		return allowUnlessErr(err)
	}
	unlock := p.locks.lock(a.Namespace)
	defer unlock()
	if quotas, err = p.quotas.list(ctx, a.Namespace); err != nil {
		return nil, fmt.Errorf("resourcequota: listing quotas: %w", err)
	}
	return p.charge(ctx, req, quotas)
}

// handles says whether quota looks at a write at all: creates of any
// namespaced object, and updates of the objects whose usage can grow.
// Subresources (status, scale, …) are left to the object they belong to.
func (p *Plugin) handles(a *admission.Attributes) bool {
	if a.Namespace == "" || a.SubResource != "" {
		return false
	}
	// A namespace's requests carry its own name as their namespace, but
	// it is not content of itself: kube's plugin lets it through too.
	if a.Resource.Group == "" && a.Resource.Resource == "namespaces" {
		return false
	}
	gr := schema.GroupResource{Group: a.Resource.Group, Resource: a.Resource.Resource}
	if ignored[gr] {
		return false
	}
	switch a.Operation {
	case admissionv1.Create:
		return true
	case admissionv1.Update:
		return slices.Contains(updatable, gr)
	}
	return false
}

// ignored are the resources kube's quota never charges
// (install.DefaultIgnoredResources): events, which were never quota'd,
// and requests that store nothing. The list is kept here because kube's
// install package would link an etcd client into admission.
var ignored = map[schema.GroupResource]bool{
	{Resource: "events"}: true, {Group: "events.k8s.io", Resource: "events"}: true,
	{Resource: "bindings"}: true, {Resource: "componentstatuses"}: true,
	{Group: "authentication.k8s.io", Resource: "tokenreviews"}:             true,
	{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}:       true,
	{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"}:      true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"}:  true,
	{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"}: true,
	{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"}:   true,
}

// newRequest decodes the write and works out its usage; an object that
// does not decode is refused as the bad request it is.
func (p *Plugin) newRequest(a *admission.Attributes) (*request, *admission.Result) {
	gr := schema.GroupResource{Group: a.Resource.Group, Resource: a.Resource.Resource}
	req := &request{attrs: a, gr: gr, ev: p.evals.of(gr)}
	var err error
	if req.obj, req.full, err = p.read(req, a.Object); err != nil {
		return nil, admission.Deny(http.StatusBadRequest, err.Error())
	}
	req.delta = req.full
	if a.Operation == admissionv1.Update {
		var was corev1.ResourceList
		if req.old, was, err = p.read(req, a.OldObject); err != nil {
			return nil, admission.Deny(http.StatusBadRequest, err.Error())
		}
		req.delta = increase(req.full, was)
	}
	return req, nil
}

// read decodes one admission object of the request and works out its
// usage.
func (p *Plugin) read(req *request, ext runtime.RawExtension) (runtime.Object, corev1.ResourceList, error) {
	obj, err := decode(req.gr, req.attrs.Kind, ext)
	if err != nil {
		return nil, nil, err
	}
	used, err := req.ev.Usage(obj)
	if err != nil {
		return nil, nil, fmt.Errorf("resourcequota: %s usage: %w", req.gr, err)
	}
	return obj, used, nil
}

// decode reads an admission object, given as JSON or (from a local caller)
// as a typed object: as kube's internal type, defaulted, for the resources
// whose evaluators look inside their objects (whatever version the request
// is in), else only its metadata.
func decode(gr schema.GroupResource, kind metav1.GroupVersionKind, ext runtime.RawExtension) (runtime.Object, error) {
	raw := ext.Raw
	if len(raw) == 0 && ext.Object != nil {
		var err error
		if raw, err = json.Marshal(ext.Object); err != nil {
			return nil, err
		}
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("resourcequota: no %s object to evaluate", gr)
	}
	if slices.Contains(updatable, gr) {
		return kubeobject.Internal(raw, schema.GroupVersionKind(kind))
	}
	obj := &metav1.PartialObjectMetadata{}
	if err := json.Unmarshal(raw, obj); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", gr, err)
	}
	return obj, nil
}

func orAllow(r *admission.Result) *admission.Result {
	if r == nil {
		return admission.Allow()
	}
	return r
}

func allowUnlessErr(err error) (*admission.Result, error) {
	if err != nil {
		return nil, fmt.Errorf("resourcequota: listing quotas: %w", err)
	}
	return admission.Allow(), nil
}
