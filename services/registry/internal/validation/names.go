package validation

import (
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// invalidEach turns the messages of a format check into one Invalid error
// each, the way kube reports every failed format rule.
func invalidEach(path *field.Path, value any, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range msgs {
		errs = append(errs, field.Invalid(path, value, msg))
	}
	return errs
}

// dnsSubdomain checks a DNS-1123 subdomain (object names, node names).
func dnsSubdomain(value string, path *field.Path) field.ErrorList {
	return invalidEach(path, value, validation.IsDNS1123Subdomain(value))
}

// oneOf returns a NotSupported error when value is not among allowed, and a
// Required error when it is empty, the pair kube uses for enum fields.
func oneOf[T ~string](value T, path *field.Path, allowed ...T) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	for _, a := range allowed {
		if value == a {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(path, value, allowed)}
}
