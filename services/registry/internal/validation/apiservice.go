package validation

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// defaultServicePort is the port of a backend service when none is given.
const defaultServicePort = 443

// Priority bounds of an APIService, as kube-aggregator sets them.
const (
	maxGroupPriority   = 20000
	maxVersionPriority = 1000
)

// DefaultAPIService calls the backing service on 443 unless told otherwise.
func DefaultAPIService(obj *unstructured.Unstructured) {
	setDefault(mapAt(mapAt(obj.Object, "spec"), "service"), "port", int64(defaultServicePort))
}

// ValidateAPIService checks that an APIService is named for the group
// version it serves, its priorities, and its backing service. A local
// APIService (no service) is served by the aggregator itself and takes no
// TLS settings.
func ValidateAPIService(obj, old *unstructured.Unstructured) field.ErrorList {
	svc, _, errs := decodePair[apiregistrationv1.APIService](obj, old)
	if len(errs) > 0 {
		return errs
	}
	spec, p := &svc.Spec, field.NewPath("spec")
	if want := spec.Version + "." + spec.Group; svc.Name != want {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), svc.Name,
			fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", want)))
	}
	errs = append(errs, validateAPIServiceGroupVersion(spec, p)...)
	if spec.GroupPriorityMinimum <= 0 || spec.GroupPriorityMinimum > maxGroupPriority {
		errs = append(errs, field.Invalid(p.Child("groupPriorityMinimum"), spec.GroupPriorityMinimum, "must be positive and less than 20000"))
	}
	if spec.VersionPriority <= 0 || spec.VersionPriority > maxVersionPriority {
		errs = append(errs, field.Invalid(p.Child("versionPriority"), spec.VersionPriority, "must be positive and less than 1000"))
	}
	return append(errs, validateAPIServiceBackend(spec, p)...)
}

// validateAPIServiceGroupVersion checks the group and version. Only the
// legacy core group v1 has an empty group.
func validateAPIServiceGroupVersion(spec *apiregistrationv1.APIServiceSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Group == "" && spec.Version != "v1" {
		errs = append(errs, field.Required(p.Child("group"), "only v1 may have an empty group and it better be legacy kube"))
	}
	if spec.Group != "" {
		errs = append(errs, dnsSubdomain(spec.Group, p.Child("group"))...)
	}
	return append(errs, invalidEach(p.Child("version"), spec.Version, validation.IsDNS1035Label(spec.Version))...)
}

// validateAPIServiceBackend checks the service behind the APIService and
// its TLS settings.
func validateAPIServiceBackend(spec *apiregistrationv1.APIServiceSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Service == nil {
		if len(spec.CABundle) > 0 {
			errs = append(errs, field.Invalid(p.Child("caBundle"), fmt.Sprintf("%d bytes", len(spec.CABundle)), "local APIServices may not have a caBundle"))
		}
		if spec.InsecureSkipTLSVerify {
			errs = append(errs, field.Invalid(p.Child("insecureSkipTLSVerify"), true, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return errs
	}
	svcPath := p.Child("service")
	if spec.Service.Namespace == "" {
		errs = append(errs, field.Required(svcPath.Child("namespace"), ""))
	}
	if spec.Service.Name == "" {
		errs = append(errs, field.Required(svcPath.Child("name"), ""))
	}
	port := int32(defaultServicePort)
	if spec.Service.Port != nil {
		port = *spec.Service.Port
	}
	if msgs := validation.IsValidPortNum(int(port)); len(msgs) > 0 {
		errs = append(errs, field.Invalid(svcPath.Child("port"), port, "port is not valid: "+strings.Join(msgs, ", ")))
	}
	if spec.InsecureSkipTLSVerify && len(spec.CABundle) > 0 {
		errs = append(errs, field.Invalid(p.Child("insecureSkipTLSVerify"), true, "may not be true if caBundle is present"))
	}
	return errs
}
