package validation

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// schemaTypes are the OpenAPI types a schema node may have.
var schemaTypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// validateRootSchema checks a version's schema for the structural rules
// kube enforces most visibly: an object at the root, a type on every node
// that describes a field, and plain schemas where v1 forbids alternatives.
// It does not implement the full structural-schema algorithm.
func validateRootSchema(s *apiextensionsv1.JSONSchemaProps, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch s.Type {
	case "":
		errs = append(errs, field.Required(p.Child("type"), "must not be empty at the root"))
	case "object":
	default:
		errs = append(errs, field.Invalid(p.Child("type"), s.Type, "must be object at the root"))
	}
	return append(errs, validateSchemaNode(s, p)...)
}

// validateSchemaNode checks one schema node and its children.
func validateSchemaNode(s *apiextensionsv1.JSONSchemaProps, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Type != "" {
		errs = append(errs, oneOf(s.Type, p.Child("type"), schemaTypes...)...)
	}
	if s.Ref != nil {
		errs = append(errs, field.Forbidden(p.Child("$ref"), "$ref is not supported"))
	}
	for _, name := range sortedKeys(s.Properties) {
		child := s.Properties[name]
		childPath := p.Child("properties").Key(name)
		errs = append(errs, requireType(&child, childPath, "must not be empty for specified object fields")...)
		errs = append(errs, validateSchemaNode(&child, childPath)...)
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		apPath := p.Child("additionalProperties")
		if len(s.Properties) > 0 {
			errs = append(errs, field.Forbidden(apPath, "additionalProperties and properties are mutual exclusive"))
		}
		errs = append(errs, requireType(ap.Schema, apPath, "must not be empty for specified object fields")...)
		errs = append(errs, validateSchemaNode(ap.Schema, apPath)...)
	}
	return append(errs, validateSchemaItems(s.Items, p.Child("items"))...)
}

// validateSchemaItems checks an array's item schema; v1 takes exactly one.
func validateSchemaItems(items *apiextensionsv1.JSONSchemaPropsOrArray, p *field.Path) field.ErrorList {
	switch {
	case items == nil:
		return nil
	case len(items.JSONSchemas) > 0:
		return field.ErrorList{field.Forbidden(p, "items must be a schema object and not an array")}
	case items.Schema == nil:
		return nil
	}
	errs := requireType(items.Schema, p, "must not be empty for specified array items")
	return append(errs, validateSchemaNode(items.Schema, p)...)
}

// requireType requires a type on a node that describes a value, unless an
// extension says what it holds (int-or-string, an embedded object, or
// anything at all).
func requireType(s *apiextensionsv1.JSONSchemaProps, p *field.Path, msg string) field.ErrorList {
	preserve := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
	if s.Type == "" && !s.XIntOrString && !s.XEmbeddedResource && !preserve {
		return field.ErrorList{field.Required(p.Child("type"), msg)}
	}
	return nil
}
