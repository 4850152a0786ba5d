package webhooks

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/kubeobject"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// invocation is what a webhook is asked about a write: the write itself,
// or the write as an equivalent resource, with the conversion between the
// two kinds.
type invocation struct {
	attrs *admission.Attributes
	// convert converts an object from one of the two kinds to the other
	// (the apiVersion to convert to says which); nil when attrs is the
	// write itself.
	convert converter
}

// converter converts raw, an object of kind from, to version to.
type converter func(ctx context.Context, raw []byte, from schema.GroupVersionKind, to schema.GroupVersion) (map[string]any, error)

// builtin converts through kube's scheme (see kubeobject.Convert).
func builtin(_ context.Context, raw []byte, from schema.GroupVersionKind, to schema.GroupVersion) (map[string]any, error) {
	return kubeobject.Convert(raw, from, to)
}

// invocationFor is what h is asked about a, as kube's ShouldCallHook finds
// it: a itself when h's rules match it as it is; under matchPolicy
// Equivalent, else, a as the first equivalent resource they match (the
// HorizontalPodAutoscaler of autoscaling/v2 for a write through v1, an
// events.k8s.io Event for a core one, another served version of a custom
// resource), its objects converted to that resource's kind, the resource
// the client asked for left in RequestKind and RequestResource. Nil when
// h does not want a.
func (d *dispatcher) invocationFor(ctx context.Context, h *hook, a *admission.Attributes) (*invocation, error) {
	if h.matchesRules(a) {
		return &invocation{attrs: a}, nil
	}
	if h.exact {
		return nil, nil
	}
	asked := schema.GroupVersionResource(a.Resource)
	equivalents := d.equivalents.EquivalentResourcesFor(asked, a.SubResource)
	if len(equivalents) == 0 {
		return d.customInvocation(ctx, h, a)
	}
	for _, gvr := range equivalents {
		if inv, err := d.as(ctx, h, a, gvr, d.equivalents.KindFor(gvr, a.SubResource), builtin); inv != nil || err != nil {
			return inv, err
		}
	}
	return nil, nil
}

// as is the invocation of h about a as resource gvr of kind, its objects
// converted by convert; nil when gvr is a's own or h's rules do not name
// it.
func (d *dispatcher) as(ctx context.Context, h *hook, a *admission.Attributes, gvr schema.GroupVersionResource,
	kind schema.GroupVersionKind, convert converter) (*invocation, error) {
	if gvr == schema.GroupVersionResource(a.Resource) {
		return nil, nil
	}
	as := *a
	as.Resource = metav1.GroupVersionResource(gvr)
	if !admission.Matches(h.rules, &as) {
		return nil, nil
	}
	if err := convertObjects(ctx, &as, metav1.GroupVersionKind(kind), convert); err != nil {
		return nil, err
	}
	return &invocation{attrs: &as, convert: convert}, nil
}

// convertObjects sets a's kind to kind, converting its objects to it.
func convertObjects(ctx context.Context, a *admission.Attributes, kind metav1.GroupVersionKind, convert converter) error {
	if kind == a.Kind {
		return nil
	}
	for _, obj := range []*[]byte{&a.Object.Raw, &a.OldObject.Raw} {
		if len(*obj) == 0 {
			continue
		}
		converted, err := convert(ctx, *obj, schema.GroupVersionKind(a.Kind), schema.GroupVersion{Group: kind.Group, Version: kind.Version})
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
func patchBack(ctx context.Context, a *admission.Attributes, inv *invocation, next []byte) ([]byte, error) {
	gv := schema.GroupVersion{Group: a.Kind.Group, Version: a.Kind.Version}
	from := schema.GroupVersionKind(inv.attrs.Kind)
	before, err := inv.convert(ctx, inv.attrs.Object.Raw, from, gv)
	if err != nil {
		return nil, err
	}
	after, err := inv.convert(ctx, next, from, gv)
	if err != nil {
		return nil, err
	}
	p, err := plugin.PatchFor(a.Object.Raw, before, after)
	if err != nil || len(p) == 0 {
		return nil, err
	}
	return json.Marshal(p)
}
