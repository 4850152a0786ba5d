package kubeplugin

import (
	"context"
	"maps"

	kubeadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/kubeobject"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// objectInterfaces are the scheme's helpers kube hands every plugin.
var objectInterfaces = kubeadmission.NewObjectInterfacesFromScheme(legacyscheme.Scheme)

// mutator is a kube plugin's mutating half as our Admitter: its Admit,
// whose changes to the object become the result's patch.
type mutator struct {
	kube kubeadmission.MutationInterface
	// objects, when set, replace objectInterfaces (a plugin that needs
	// to know equivalent resources).
	objects kubeadmission.ObjectInterfaces
}

// validator is a kube plugin's validating half as our Admitter: its
// Validate.
type validator struct {
	kube kubeadmission.ValidationInterface
}

// Admit implements admission.Admitter.
func (m mutator) Admit(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	return run(ctx, m.kube, a, func(ctx context.Context, req *request) (*admission.Result, error) {
		objects := m.objects
		if objects == nil {
			objects = objectInterfaces
		}
		if err := m.kube.Admit(ctx, req, objects); err != nil {
			return denial(err), nil
		}
		return changes(a, req)
	})
}

// Admit implements admission.Admitter.
func (v validator) Admit(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	return run(ctx, v.kube, a, func(ctx context.Context, req *request) (*admission.Result, error) {
		if err := v.kube.Validate(ctx, req, objectInterfaces); err != nil {
			return denial(err), nil
		}
		return admission.Allow(), nil
	})
}

// run calls the plugin on a translated into kube's attributes, unless it
// does not handle the operation, and adds to the result the warnings and
// audit annotations the plugin left, allowed or not. A request that cannot
// be translated (an object that is not of its kind) is an error: no
// decision, so the caller fails closed.
func run(ctx context.Context, kube kubeadmission.Interface, a *admission.Attributes,
	call func(context.Context, *request) (*admission.Result, error)) (*admission.Result, error) {
	if !kube.Handles(kubeadmission.Operation(a.Operation)) {
		return admission.Allow(), nil
	}
	req, err := newRequest(ctx, a)
	if err != nil {
		return nil, err
	}
	ctx, warned := withWarnings(ctx)
	ctx = audit.WithAuditContext(ctx)
	res, err := call(ctx, req)
	if err != nil {
		return nil, err
	}
	res.Warnings = warned.list()
	annotations := req.added()
	if ac := audit.AuditContextFrom(ctx); ac != nil {
		if annotations == nil {
			annotations = ac.GetEventAnnotations()
		} else {
			maps.Copy(annotations, ac.GetEventAnnotations())
		}
	}
	if len(annotations) > 0 {
		res.AuditAnnotations = annotations
	}
	return res, nil
}

// changes is the allow carrying, as a JSON patch of the admitted object,
// what the plugin changed in it.
func changes(a *admission.Attributes, req *request) (*admission.Result, error) {
	if req.before == nil {
		return admission.Allow(), nil
	}
	before, err := kubeobject.ExternalJSON(req.before, req.gv)
	if err != nil {
		return nil, err
	}
	after, err := kubeobject.ExternalJSON(req.GetObject(), req.gv)
	if err != nil {
		return nil, err
	}
	patch, err := plugin.PatchFor(a.Object.Raw, before, after)
	if err != nil {
		return nil, err
	}
	return patch.Result()
}
