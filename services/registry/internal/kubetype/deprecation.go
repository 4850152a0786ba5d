package kubetype

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/deprecation"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// servedMajor and servedMinor are the Kubernetes release whose API is
// served: a kind deprecated in it or before is announced as deprecated.
const servedMajor, servedMinor = 1, 37

// Deprecation is the warning kube sends with every request for a kind
// whose API version is deprecated in the served release ("v1 Endpoints is
// deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"), from the
// lifecycle its Go type declares; empty for a kind not deprecated.
func Deprecation(gvk schema.GroupVersionKind) string {
	obj, err := legacyscheme.Scheme.New(gvk)
	if err != nil || !deprecation.IsDeprecated(obj, servedMajor, servedMinor) {
		return ""
	}
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	return deprecation.WarningMessage(obj)
}
