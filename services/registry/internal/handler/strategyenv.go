package handler

import (
	"context"
	"encoding/json"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/services/registry/internal/kubetype"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// SetAuthorizer gives kube's strategies that check the writer's own
// permissions (an admission policy's paramKind, a binding's paramRef, a
// PodCertificateRequest's signer, a ResourceClaim's driver status) the
// authorizer to ask; without one they allow only system:masters.
func (h *Handler) SetAuthorizer(a authz.Authorizer) { h.authorizer = a }

// strategyEnv is what those strategies may ask of this handler.
func (h *Handler) strategyEnv() kubetype.Env {
	return kubetype.Env{
		Authorizer: h.authorizer,
		ValidatingPolicy: func(ctx context.Context, name string) (*admissionregistration.ValidatingAdmissionPolicy, error) {
			out := &admissionregistration.ValidatingAdmissionPolicy{}
			return out, h.readInternal(ctx, "validatingadmissionpolicies", name, &admissionregistrationv1.ValidatingAdmissionPolicy{}, out)
		},
		MutatingPolicy: func(ctx context.Context, name string) (*admissionregistration.MutatingAdmissionPolicy, error) {
			out := &admissionregistration.MutatingAdmissionPolicy{}
			return out, h.readInternal(ctx, "mutatingadmissionpolicies", name, &admissionregistrationv1.MutatingAdmissionPolicy{}, out)
		},
		Namespace: h.namespace,
	}
}

// namespace reads a Namespace from the store.
func (h *Handler) namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	if h.namespaces == nil {
		return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
	}
	obj, err := h.namespaces.Get(ctx, "", name, storage.ReadOptions{})
	if err != nil {
		return nil, err
	}
	ns := &corev1.Namespace{}
	return ns, json.Unmarshal(obj.JSON, ns)
}

// readInternal reads the cluster-scoped admissionregistration.k8s.io/v1
// object name of resource into external, then kube's internal form.
func (h *Handler) readInternal(ctx context.Context, resource, name string, external, internal runtime.Object) error {
	gvr := schema.GroupVersionResource{Group: admissionregistrationv1.GroupName, Version: "v1", Resource: resource}
	obj, err := h.stores[gvr].Get(ctx, "", name, storage.ReadOptions{})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(obj.JSON, external); err != nil {
		return err
	}
	return legacyscheme.Scheme.Convert(external, internal, nil)
}
