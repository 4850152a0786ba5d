// Package customresource serves the objects a CustomResourceDefinition
// defines, as kube-apiserver's apiextensions server does: it turns each
// served version of a CRD into a resource.Info (names, scope,
// subresources, printer columns) whose defaulting, pruning and validation
// follow the version's structural openAPIV3Schema, including its
// x-kubernetes-validations CEL rules, and keeps the registry's handler and
// discovery in step with the CRDs in storage. The objects themselves go
// through the same generic store and handlers as built-in types.
package customresource

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"

	"github.com/kubesplit/kubesplit/services/registry/internal/validation"
)

// Schema is one version's openAPIV3Schema, ready to prune, default and
// validate objects with.
type Schema struct {
	// root is the schema as the CRD spells it, linked; pruning, defaulting
	// and the CEL rules walk it.
	root *node
	// validator checks types, formats, enums, patterns and bounds with
	// kube-openapi, the library kube's own CR validation uses.
	validator *validate.SchemaValidator
	// published is the schema for the OpenAPI documents.
	published *spec.Schema
}

// NewSchema compiles a version's schema; nil means no schema (every field
// is kept, nothing is checked), which v1 CRDs only allow when the whole
// object preserves unknown fields.
func NewSchema(props *apiextensionsv1.JSONSchemaProps) (*Schema, error) {
	if props == nil {
		preserve := true
		props = &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve}
	}
	openapi, err := toOpenAPI(validationView(props))
	if err != nil {
		return nil, err
	}
	published, err := toOpenAPI(props)
	if err != nil {
		return nil, err
	}
	s := &Schema{root: newNode(props.DeepCopy()), validator: validate.NewSchemaValidator(openapi, nil, "", strfmt.Default),
		published: published}
	if err := compileRules(s.root); err != nil {
		return nil, err
	}
	return s, nil
}

// validationView is the schema the validator sees: metadata is checked as
// ObjectMeta by the generic handler, so only its being an object is left
// here, as kube does.
func validationView(root *apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
	view := root.DeepCopy()
	if _, ok := view.Properties["metadata"]; ok {
		view.Properties["metadata"] = apiextensionsv1.JSONSchemaProps{Type: "object"}
	}
	return view
}

// toOpenAPI converts a CRD schema as kube does.
func toOpenAPI(props *apiextensionsv1.JSONSchemaProps) (*spec.Schema, error) {
	return validation.CRDOpenAPISchema(props)
}

// node is one schema node with its children linked, so that the walks
// below (pruning, defaulting, CEL) can hold on to nodes.
type node struct {
	props      *apiextensionsv1.JSONSchemaProps
	properties map[string]*node
	additional *node // additionalProperties' schema
	items      *node
	rules      []compiledRule
}

// newNode links a schema and its children.
func newNode(props *apiextensionsv1.JSONSchemaProps) *node {
	n := &node{props: props}
	if len(props.Properties) > 0 {
		n.properties = map[string]*node{}
		for k := range props.Properties {
			p := props.Properties[k]
			n.properties[k] = newNode(&p)
		}
	}
	if ap := props.AdditionalProperties; ap != nil && ap.Schema != nil {
		n.additional = newNode(ap.Schema)
	}
	if props.Items != nil && props.Items.Schema != nil {
		n.items = newNode(props.Items.Schema)
	}
	return n
}

// child is the schema of a map's key: its property, or additionalProperties.
func (n *node) child(key string) *node {
	if n == nil {
		return nil
	}
	if p, ok := n.properties[key]; ok {
		return p
	}
	return n.additional
}

// item is an array's item schema.
func (n *node) item() *node {
	if n == nil {
		return nil
	}
	return n.items
}

// preserves reports x-kubernetes-preserve-unknown-fields.
func (n *node) preserves() bool {
	return n != nil && n.props.XPreserveUnknownFields != nil && *n.props.XPreserveUnknownFields
}

// embedded reports x-kubernetes-embedded-resource.
func (n *node) embedded() bool { return n != nil && n.props.XEmbeddedResource }
