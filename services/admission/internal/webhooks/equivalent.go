package webhooks

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/kubeobject"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// invocation is what h is asked about a, as kube's ShouldCallHook finds
// it: a itself when h's rules match it as it is; under matchPolicy
// Equivalent, else, a as the first equivalent resource they match (the
// HorizontalPodAutoscaler of autoscaling/v2 for a write through v1, an
// events.k8s.io Event for a core one), its objects converted to that
// resource's kind, the resource the client asked for left in
// RequestKind and RequestResource. Nil when h does not want a.
func (d *dispatcher) invocation(h *hook, a *admission.Attributes) (*admission.Attributes, error) {
	if h.matchesRules(a) {
		return a, nil
	}
	if h.exact {
		return nil, nil
	}
	asked := schema.GroupVersionResource(a.Resource)
	equivalents := d.equivalents.EquivalentResourcesFor(asked, a.SubResource)
	if len(equivalents) == 0 {
		// Not a kind kube's scheme converts (a custom resource): any
		// version of the resource, sent as it is.
		if admission.Matches(h.anyVersion, a) {
			return a, nil
		}
		return nil, nil
	}
	for _, gvr := range equivalents {
		if gvr == asked {
			continue
		}
		as := *a
		as.Resource = metav1.GroupVersionResource(gvr)
		if !admission.Matches(h.rules, &as) {
			continue
		}
		kind := d.equivalents.KindFor(gvr, a.SubResource)
		if err := convertObjects(&as, metav1.GroupVersionKind(kind)); err != nil {
			return nil, err
		}
		return &as, nil
	}
	return nil, nil
}

// convertObjects sets a's kind to kind, converting its objects to it.
func convertObjects(a *admission.Attributes, kind metav1.GroupVersionKind) error {
	if kind == a.Kind {
		return nil
	}
	for _, obj := range []*[]byte{&a.Object.Raw, &a.OldObject.Raw} {
		if len(*obj) == 0 {
			continue
		}
		converted, err := kubeobject.Convert(*obj, schema.GroupVersionKind(a.Kind), schema.GroupVersion{Group: kind.Group, Version: kind.Version})
		if err != nil {
			return fmt.Errorf("converting %v to %v: %w", a.Kind, kind, err)
		}
		if *obj, err = json.Marshal(converted); err != nil {
			return err
		}
	}
	a.Kind = kind
	return nil
}

// patchBack is a webhook's patch of inv's object (next is the result) as
// a patch of a's, which is of another kind: both the object inv was sent
// and the patched one converted back to a's kind, and what differs
// between them. Nil when nothing does.
func patchBack(a, inv *admission.Attributes, next []byte) ([]byte, error) {
	gv := schema.GroupVersion{Group: a.Kind.Group, Version: a.Kind.Version}
	from := schema.GroupVersionKind(inv.Kind)
	before, err := kubeobject.Convert(inv.Object.Raw, from, gv)
	if err != nil {
		return nil, err
	}
	after, err := kubeobject.Convert(next, from, gv)
	if err != nil {
		return nil, err
	}
	p, err := plugin.PatchFor(a.Object.Raw, before, after)
	if err != nil || len(p) == 0 {
		return nil, err
	}
	return json.Marshal(p)
}
