package resource

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// CustomOpenAPI is what a custom resource publishes in the OpenAPI
// documents: the definitions of its kind and its list, by definition name,
// once in each OpenAPI version, since kube publishes them differently (v2
// leaves out what kubectl's v2 validation would misread).
type CustomOpenAPI struct {
	V2, V3 map[string]spec.Schema
}

// CustomDefinitionName is the name kube gives a custom kind's definition:
// the reversed group, the version and the kind (com.example.stable.v1.CronTab).
func CustomDefinitionName(gvk schema.GroupVersionKind) string {
	parts := strings.Split(gvk.Group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + gvk.Version + "." + gvk.Kind
}
