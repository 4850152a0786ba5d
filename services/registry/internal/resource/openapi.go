package resource

import "k8s.io/kube-openapi/pkg/validation/spec"

// CustomOpenAPI is what a custom resource publishes in the OpenAPI
// documents: the definitions of its kind and its list, by definition name,
// once in each OpenAPI version, since kube publishes them differently (v2
// leaves out what kubectl's v2 validation would misread).
type CustomOpenAPI struct {
	V2, V3 map[string]spec.Schema
}
