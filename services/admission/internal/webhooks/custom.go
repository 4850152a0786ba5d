package webhooks

import (
	"context"
	"encoding/json"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/crconvert"
)

var crds = apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")

// customInvocation is invocationFor a custom resource, or any kind kube's
// scheme does not know: the other served versions of its CRD are its
// equivalents, as in kube, and the object is converted as the CRD
// converts it (its conversion webhook, or apiVersion rewritten). The CRD
// is read when a webhook names the resource in another version only, which
// is rare; a resource no CRD serves is sent as it is.
func (d *dispatcher) customInvocation(ctx context.Context, h *hook, a *admission.Attributes) (*invocation, error) {
	if !admission.Matches(h.anyVersion, a) {
		return nil, nil // no version of the resource named
	}
	crd, err := d.crd(ctx, a.Resource.Group, a.Resource.Resource)
	if err != nil {
		return nil, err
	}
	if crd == nil {
		return &invocation{attrs: a}, nil
	}
	convert, err := customConverter(crd)
	if err != nil {
		return nil, err
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		gvr := schema.GroupVersionResource{Group: a.Resource.Group, Version: v.Name, Resource: a.Resource.Resource}
		kind := schema.GroupVersionKind{Group: a.Kind.Group, Version: v.Name, Kind: a.Kind.Kind}
		if inv, err := d.as(ctx, h, a, gvr, kind, convert); inv != nil || err != nil {
			return inv, err
		}
	}
	return nil, nil
}

// crd is the CRD serving group's resource; nil if there is none, or no
// client to read it with.
func (d *dispatcher) crd(ctx context.Context, group, resource string) (*apiextensionsv1.CustomResourceDefinition, error) {
	if d.dynamic == nil {
		return nil, nil
	}
	u, err := d.dynamic.Resource(crds).Get(ctx, resource+"."+group, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, crd); err != nil {
		return nil, err
	}
	return crd, nil
}

// customConverter converts a CRD's objects as the CRD says.
func customConverter(crd *apiextensionsv1.CustomResourceDefinition) (converter, error) {
	conv, err := crconvert.ForCRD(crd)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, raw []byte, _ schema.GroupVersionKind, to schema.GroupVersion) (map[string]any, error) {
		obj := map[string]any{}
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, err
		}
		return conv.Convert(ctx, obj, to.String())
	}, nil
}
