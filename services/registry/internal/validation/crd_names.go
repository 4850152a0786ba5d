package validation

import (
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validateCRDNames checks the names a custom resource is known by. All are
// DNS-1035 labels (kinds may have capitals), and the kind and list kind
// must differ or decoding a body could not tell them apart.
func validateCRDNames(names *apiextensionsv1.CustomResourceDefinitionNames, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, n := range []struct {
		field, value string
		mixedCase    bool
	}{
		{"plural", names.Plural, false}, {"singular", names.Singular, false},
		{"kind", names.Kind, true}, {"listKind", names.ListKind, true},
	} {
		errs = append(errs, validateCRDName(n.value, n.mixedCase, p.Child(n.field))...)
	}
	if names.Kind != "" && names.Kind == names.ListKind {
		errs = append(errs, field.Invalid(p.Child("listKind"), names.ListKind, "kind and listKind may not be the same"))
	}
	for i, s := range names.ShortNames {
		errs = append(errs, labelInvalid(s, p.Child("shortNames").Index(i))...)
	}
	for i, c := range names.Categories {
		errs = append(errs, labelInvalid(c, p.Child("categories").Index(i))...)
	}
	return errs
}

// validateCRDName checks one required name.
func validateCRDName(value string, mixedCase bool, p *field.Path) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if !mixedCase {
		return labelInvalid(value, p)
	}
	if msgs := validation.IsDNS1035Label(strings.ToLower(value)); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(p, value, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ","))}
	}
	return nil
}

// labelInvalid reports a value that is not a DNS-1035 label as one error.
func labelInvalid(value string, p *field.Path) field.ErrorList {
	if msgs := validation.IsDNS1035Label(value); len(msgs) > 0 {
		return field.ErrorList{field.Invalid(p, value, strings.Join(msgs, ","))}
	}
	return nil
}
