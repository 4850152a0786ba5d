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
