package customresource

import (
	"encoding/json"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/validate"

	"github.com/kubesplit/kubesplit/pkg/celenv"
)

// Validate checks an object against the schema: its OpenAPI keywords,
// embedded resources, then its x-kubernetes-validations rules, with old
// (nil on create) as oldSelf where a value has a counterpart there.
func (s *Schema) Validate(obj, old map[string]any) field.ErrorList {
	errs := openAPIErrors(s.validator.Validate(obj))
	errs = append(errs, embeddedErrors(obj, s.root, nil)...)
	errs = append(errs, listTypeErrors(obj, s.root, nil)...)
	if blocking(errs) {
		// Rules written for the schema's types would only fail
		// confusingly on a value of another type.
		return append(errs, field.Invalid(nil, nil,
			"some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
	}
	var oldV any
	if old != nil {
		oldV = old
	}
	// One budget for all the rules of the object, kube's per-object bound.
	return append(errs, celErrors(obj, oldV, s.root, nil, celenv.NewBudget(celenv.RuntimeCostBudget))...)
}

// blocking reports errors after which kube does not evaluate CEL rules: a
// value of the wrong type or outside its enum.
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		if e.Type == field.ErrorTypeTypeInvalid || e.Type == field.ErrorTypeNotSupported {
			return true
		}
	}
	return false
}

// openAPIErrors turns kube-openapi's result into field errors the way kube
// does, so messages read the same: "spec.replicas: Invalid value: ...".
func openAPIErrors(result *validate.Result) field.ErrorList {
	var errs field.ErrorList
	for _, err := range result.Errors {
		v, ok := err.(*openapierrors.Validation)
		if !ok {
			errs = append(errs, field.Invalid(nil, "", err.Error()))
			continue
		}
		p := pathOf(v.Name)
		switch v.Code() {
		case openapierrors.RequiredFailCode:
			errs = append(errs, field.Required(p, ""))
		case openapierrors.EnumFailCode:
			errs = append(errs, field.NotSupported(p, v.Value, enumValues(v.Values)))
		case openapierrors.TooLongFailCode:
			errs = append(errs, field.TooLong(p, "", intOf(v.Valid)))
		case openapierrors.MaxItemsFailCode, openapierrors.TooManyPropertiesCode:
			errs = append(errs, field.TooMany(p, intOf(v.Value), intOf(v.Valid)))
		case openapierrors.InvalidTypeCode:
			errs = append(errs, field.TypeInvalid(p, valueOr(v.Value), v.Error()))
		default:
			errs = append(errs, field.Invalid(p, valueOr(v.Value), v.Error()))
		}
	}
	return errs
}

// pathOf is a field path from kube-openapi's dotted name ("." is the root).
func pathOf(name string) *field.Path {
	name = strings.TrimPrefix(name, ".")
	if name == "" {
		return nil
	}
	return field.NewPath(name)
}

func enumValues(values []any) []string {
	out := make([]string, 0, len(values))
	for _, v := range values {
		if s, ok := v.(string); ok {
			out = append(out, s)
			continue
		}
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	return out
}

func intOf(v any) int {
	if i, ok := v.(int64); ok {
		return int(i)
	}
	return -1
}

func valueOr(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// embeddedErrors requires apiVersion and kind of every
// x-kubernetes-embedded-resource object, as kube does.
func embeddedErrors(x any, n *node, p *field.Path) field.ErrorList {
	if n == nil {
		return nil
	}
	var errs field.ErrorList
	switch x := x.(type) {
	case map[string]any:
		if n.embedded() && p != nil {
			for _, k := range []string{"apiVersion", "kind"} {
				if s, _ := x[k].(string); s == "" {
					errs = append(errs, field.Required(p.Child(k), "must not be empty"))
				}
			}
		}
		for k, v := range x {
			errs = append(errs, embeddedErrors(v, n.child(k), childPath(p, k))...)
		}
	case []any:
		for i, v := range x {
			errs = append(errs, embeddedErrors(v, n.item(), indexPath(p, i))...)
		}
	}
	return errs
}

func childPath(p *field.Path, k string) *field.Path {
	if p == nil {
		return field.NewPath(k)
	}
	return p.Child(k)
}

func indexPath(p *field.Path, i int) *field.Path {
	if p == nil {
		return field.NewPath("").Index(i)
	}
	return p.Index(i)
}
