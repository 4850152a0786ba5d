package handler

import (
	"context"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// namespaceStates answers admission rules' namespace conditions from the
// registry's own caches, so that admission is asked only about writes in
// namespaces where its rules apply (a quota to charge, a namespace being
// deleted), and is asked whenever a cache cannot tell.
type namespaceStates struct{ h *Handler }

// Phase implements admission.NamespaceStates.
func (s namespaceStates) Phase(ctx context.Context, namespace string) (string, bool) {
	if s.h.namespaces == nil {
		return "", false
	}
	obj, err := s.h.namespaces.Get(ctx, "", namespace, storage.ReadOptions{ResourceVersion: "0"})
	if err != nil {
		return "", false
	}
	var ns struct {
		Status struct {
			Phase string `json:"phase"`
		} `json:"status"`
	}
	if err := json.Unmarshal(obj.JSON, &ns); err != nil {
		return "", false
	}
	return ns.Status.Phase, true
}

// Holds implements admission.NamespaceStates. A resource the registry does
// not serve has no objects anywhere.
func (s namespaceStates) Holds(_ context.Context, namespace string, gr metav1.GroupResource) (bool, bool) {
	st, ok := s.h.storeOf(gr)
	if !ok {
		return false, true
	}
	return st.Holds(namespace)
}
