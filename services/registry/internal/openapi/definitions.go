package openapi

import (
	apiextensionsopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	aggregatoropenapi "k8s.io/kube-aggregator/pkg/generated/openapi"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
	kubeopenapi "k8s.io/kubernetes/pkg/generated/openapi"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// builtinDefinitions are the definitions of the built-in types, the ones
// kube-apiserver publishes: kube's own generated definitions of every type
// it compiles in (k8s.io/kubernetes/pkg/generated/openapi, which already
// holds the apiextensions and apiregistration types too), merged with those
// apiextensions-apiserver and kube-aggregator generate for their types.
// All three are openapi-gen's output over the same release's types, so a
// name two of them define has the same definition; kube's is kept, as it
// is what kube-apiserver serves. Keys are the REST-friendly model names
// (io.k8s.api.core.v1.Pod), as resource.Scheme names them.
func builtinDefinitions(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
	defs := kubeopenapi.GetOpenAPIDefinitions(ref)
	for _, more := range []common.GetOpenAPIDefinitions{
		apiextensionsopenapi.GetOpenAPIDefinitions,
		aggregatoropenapi.GetOpenAPIDefinitions,
	} {
		for name, d := range more(ref) {
			if _, ok := defs[name]; !ok {
				defs[name] = d
			}
		}
	}
	return defs
}

// definitionsFor returns the builders' GetDefinitions hook for one OpenAPI
// version: the definitions of the built-in types, each custom resource's
// as kube publishes it in that version, and an open schema for any other
// kind without one, so that every served kind has a definition carrying
// its group-version-kind and kubectl can find it.
func definitionsFor(resources []*resource.Info, v3 bool) common.GetOpenAPIDefinitions {
	return func(ref common.ReferenceCallback) map[string]common.OpenAPIDefinition {
		defs := builtinDefinitions(ref)
		for _, r := range resources {
			kind, _ := definitionName(r.GroupVersionKind())
			if _, ok := defs[string(kind)]; ok {
				continue
			}
			list, _ := definitionName(r.GroupVersion().WithKind(r.ListKind()))
			if r.OpenAPI != nil {
				addPublished(defs, r.OpenAPI, v3)
				continue
			}
			defs[string(kind)] = openObject(ref, r)
			defs[string(list)] = openList(ref, r, kind)
		}
		return defs
	}
}

// addPublished adds a custom resource's definitions, already built with
// their references resolved, depending on the metadata types they name.
func addPublished(defs map[string]common.OpenAPIDefinition, published *resource.CustomOpenAPI, v3 bool) {
	schemas := published.V2
	if v3 {
		schemas = published.V3
	}
	for name, s := range schemas {
		defs[name] = common.OpenAPIDefinition{Schema: s, Dependencies: []string{string(defObjectMeta), string(defListMeta)}}
	}
}

// openObject describes an object whose fields are not known: the type and
// object metadata, and anything else. Kubernetes marks such schemas with
// x-kubernetes-preserve-unknown-fields, and clients then accept any field.
func openObject(ref common.ReferenceCallback, r *resource.Info) common.OpenAPIDefinition {
	s := spec.Schema{
		SchemaProps: spec.SchemaProps{
			Description: r.Kind + " is a " + r.APIVersion() + " object whose schema the registry does not know.",
			Type:        []string{"object"},
			Properties:  typeMeta(),
		},
		VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{
			"x-kubernetes-preserve-unknown-fields": true,
		}},
	}
	s.Properties["metadata"] = refSchema(ref, defObjectMeta, "Standard object's metadata.")
	return common.OpenAPIDefinition{Schema: s, Dependencies: []string{string(defObjectMeta)}}
}

// openList describes a list of objects of an open kind.
func openList(ref common.ReferenceCallback, r *resource.Info, kind model) common.OpenAPIDefinition {
	s := spec.Schema{SchemaProps: spec.SchemaProps{
		Description: r.ListKind() + " is a list of " + r.Kind + ".",
		Type:        []string{"object"},
		Required:    []string{"items"},
		Properties:  typeMeta(),
	}}
	s.Properties["metadata"] = refSchema(ref, defListMeta, "Standard list metadata.")
	item := refSchema(ref, kind, "")
	s.Properties["items"] = spec.Schema{SchemaProps: spec.SchemaProps{
		Description: "The objects of the list.",
		Type:        []string{"array"},
		Items:       &spec.SchemaOrArray{Schema: &item},
	}}
	return common.OpenAPIDefinition{Schema: s, Dependencies: []string{string(defListMeta), string(kind)}}
}

// typeMeta is the apiVersion and kind properties every object has.
func typeMeta() map[string]spec.Schema {
	return map[string]spec.Schema{
		"apiVersion": {SchemaProps: spec.SchemaProps{
			Description: "The versioned schema of this representation of the object.",
			Type:        []string{"string"},
		}},
		"kind": {SchemaProps: spec.SchemaProps{
			Description: "The REST resource this object represents, in CamelCase.",
			Type:        []string{"string"},
		}},
	}
}

// refSchema refers to another definition; the builders turn the reference
// into #/definitions/… (v2) or #/components/schemas/… (v3).
func refSchema(ref common.ReferenceCallback, name model, description string) spec.Schema {
	return spec.Schema{SchemaProps: spec.SchemaProps{Description: description, Ref: ref(string(name))}}
}
