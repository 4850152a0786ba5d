package validation

import (
	"regexp"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"

	"github.com/kubesplit/kubesplit/pkg/celenv"
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
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			errs = append(errs, field.Invalid(p.Child("pattern"), s.Pattern, "must be a valid regular expression, but isn't: "+err.Error()))
		}
	}
	errs = append(errs, validateSchemaRules(s.XValidations, p.Child("x-kubernetes-validations"))...)
	if s.Default != nil {
		errs = append(errs, validateSchemaDefault(s, p.Child("default"))...)
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

// validateSchemaRules compiles a node's x-kubernetes-validations, so a rule
// that cannot run is refused with the CRD rather than failing every write.
func validateSchemaRules(rules apiextensionsv1.ValidationRules, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range rules {
		rp := p.Index(i)
		if strings.TrimSpace(r.Rule) == "" {
			errs = append(errs, field.Required(rp.Child("rule"), "rule is not specified"))
			continue
		}
		if _, err := celenv.CompileSelf(r.Rule, celenv.Bool); err != nil {
			errs = append(errs, field.Invalid(rp.Child("rule"), r.Rule, err.Error()))
		}
		if r.MessageExpression != "" {
			if _, err := celenv.CompileSelf(r.MessageExpression, celenv.String); err != nil {
				errs = append(errs, field.Invalid(rp.Child("messageExpression"), r.MessageExpression, err.Error()))
			}
		}
		if r.Message != "" && strings.TrimSpace(r.Message) == "" {
			errs = append(errs, field.Invalid(rp.Child("message"), r.Message, "message must be non-empty if specified"))
		}
		if r.Reason != nil {
			errs = append(errs, oneOf(*r.Reason, rp.Child("reason"), apiextensionsv1.FieldValueRequired,
				apiextensionsv1.FieldValueForbidden, apiextensionsv1.FieldValueInvalid, apiextensionsv1.FieldValueDuplicate)...)
		}
	}
	return errs
}

// validateSchemaDefault checks a default against its own node's schema, so
// that defaulting can never make an object invalid.
func validateSchemaDefault(s *apiextensionsv1.JSONSchemaProps, p *field.Path) field.ErrorList {
	var value any
	if err := utiljson.Unmarshal(s.Default.Raw, &value); err != nil {
		return field.ErrorList{field.Invalid(p, string(s.Default.Raw), "must be valid JSON: "+err.Error())}
	}
	openapi, err := CRDOpenAPISchema(s)
	if err != nil {
		return field.ErrorList{field.Invalid(p, value, err.Error())}
	}
	var errs field.ErrorList
	for _, e := range validate.NewSchemaValidator(openapi, nil, "", strfmt.Default).Validate(value).Errors {
		errs = append(errs, field.Invalid(p, value, e.Error()))
	}
	return errs
}
