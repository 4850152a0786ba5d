package handler

import "k8s.io/apimachinery/pkg/runtime/schema"

// Serves reports whether the handler serves resource of group/version,
// and when subresource is not empty, that subresource of it: the stores
// it holds now, custom resources included. It is the registry's
// metrics.Catalog, so that its request metrics name only what it serves.
func (h *Handler) Serves(group, version, resource, subresource string) bool {
	h.mu.RLock()
	s, ok := h.stores[schema.GroupVersionResource{Group: group, Version: version, Resource: resource}]
	h.mu.RUnlock()
	return ok && (subresource == "" || s.Info().HasSubresource(subresource))
}
