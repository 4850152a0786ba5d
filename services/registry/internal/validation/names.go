package validation

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
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

// requiredValid reports an empty value as Required and checks any other
// with check: kube says a field is missing, not also that it is malformed.
func requiredValid(value string, path *field.Path, check func(string, *field.Path) field.ErrorList) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	return check(value, path)
}

// dnsLabel checks a DNS-1123 label (container, port and volume names).
func dnsLabel(value string, path *field.Path) field.ErrorList {
	return invalidEach(path, value, validation.IsDNS1123Label(value))
}

// dnsSubdomain checks a DNS-1123 subdomain (object names, node names).
func dnsSubdomain(value string, path *field.Path) field.ErrorList {
	return invalidEach(path, value, validation.IsDNS1123Subdomain(value))
}

// qualifiedName checks a Kubernetes qualified name: an optional DNS
// subdomain prefix and a slash, then a name of at most 63 characters.
func qualifiedName(value string, path *field.Path) field.ErrorList {
	return invalidEach(path, value, content.IsLabelKey(value))
}

// isStandardOrQualified reports whether a name without a "/" is one of the
// standard ones; names with a prefix are left to the qualified-name check.
func isStandardOrQualified(name string, standard map[string]bool) bool {
	return strings.Contains(name, "/") || standard[name]
}

// setOf builds a lookup set from its arguments.
func setOf(values ...string) map[string]bool {
	s := make(map[string]bool, len(values))
	for _, v := range values {
		s[v] = true
	}
	return s
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
