package validation

import (
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultCustomResourceDefinition fills in kube's apiextensions/v1
// defaults: the singular and list names from the kind, no conversion,
// webhook services on 443, and the storage version as the first stored
// version.
func DefaultCustomResourceDefinition(obj *unstructured.Unstructured) {
	spec := mapAt(obj.Object, "spec")
	if spec == nil {
		return
	}
	names := mapAt(spec, "names")
	if kind := stringAt(names, "kind"); kind != "" {
		setDefault(names, "singular", strings.ToLower(kind))
		setDefault(names, "listKind", kind+"List")
	}
	conversion := ensureMap(spec, "conversion")
	setDefault(conversion, "strategy", string(apiextensionsv1.NoneConverter))
	service := mapAt(mapAt(mapAt(conversion, "webhook"), "clientConfig"), "service")
	setDefault(service, "port", int64(defaultServicePort))
	defaultStoredVersions(obj.Object, spec)
}

// defaultStoredVersions records the storage version in status when the
// status lists none, so the first write is accounted for.
func defaultStoredVersions(obj, spec map[string]any) {
	for _, v := range mapsAt(spec, "versions") {
		if storage, _ := v["storage"].(bool); storage && stringAt(v, "name") != "" {
			status := ensureMap(obj, "status")
			if status != nil && len(listAt(status, "storedVersions")) == 0 {
				status["storedVersions"] = []any{v["name"]}
			}
			return
		}
	}
}

// ValidateCustomResourceDefinition checks a CRD's name, group, scope,
// names, versions (with their schemas) and conversion and, on update, that
// what its stored objects are keyed by has not changed.
func ValidateCustomResourceDefinition(obj, old *unstructured.Unstructured) field.ErrorList {
	crd, oldCRD, errs := decodePair[apiextensionsv1.CustomResourceDefinition](obj, old)
	if len(errs) > 0 {
		return errs
	}
	spec, p := &crd.Spec, field.NewPath("spec")
	if spec.Names.Plural+"."+spec.Group != crd.Name {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), crd.Name, `must be spec.names.plural+"."+spec.group`))
	}
	errs = append(errs, validateCRDGroup(spec.Group, p.Child("group"))...)
	errs = append(errs, oneOf(spec.Scope, p.Child("scope"), apiextensionsv1.ClusterScoped, apiextensionsv1.NamespaceScoped)...)
	errs = append(errs, validateCRDNames(&spec.Names, p.Child("names"))...)
	errs = append(errs, validateCRDVersions(spec.Versions, p.Child("versions"))...)
	if len(errs) == 0 {
		// Rules of a schema kube would refuse are not priced: their
		// sizes would mean little.
		errs = append(errs, validateVersionRuleCosts(spec.Versions, oldCRD, p.Child("versions"))...)
	}
	errs = append(errs, validateCRDConversion(spec.Conversion, p.Child("conversion"))...)
	if spec.PreserveUnknownFields {
		errs = append(errs, field.Invalid(p.Child("preserveUnknownFields"), true,
			"cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
	}
	if oldCRD != nil {
		errs = append(errs, validateCRDUpdate(crd, oldCRD, p)...)
	}
	return errs
}

// validateCRDGroup checks the group: a DNS subdomain with a dot, which
// keeps custom groups apart from kube's dotless legacy ones.
func validateCRDGroup(group string, p *field.Path) field.ErrorList {
	if group == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if errs := dnsSubdomain(group, p); len(errs) > 0 {
		return joinedInvalid(p, group, errs)
	}
	if !strings.Contains(group, ".") {
		return field.ErrorList{field.Invalid(p, group, "should be a domain with at least one dot")}
	}
	return nil
}

// joinedInvalid folds several format errors into one, as the
// apiextensions validation reports them.
func joinedInvalid(p *field.Path, value string, errs field.ErrorList) field.ErrorList {
	details := make([]string, len(errs))
	for i, e := range errs {
		details[i] = e.Detail
	}
	return field.ErrorList{field.Invalid(p, value, strings.Join(details, ","))}
}

// validateCRDUpdate keeps the group and plural (the storage keys and URLs
// of existing objects) and, once the CRD is established, its scope.
func validateCRDUpdate(crd, old *apiextensionsv1.CustomResourceDefinition, p *field.Path) field.ErrorList {
	errs := apimachineryvalidation.ValidateImmutableField(crd.Spec.Group, old.Spec.Group, p.Child("group"))
	errs = append(errs, apimachineryvalidation.ValidateImmutableField(crd.Spec.Names.Plural, old.Spec.Names.Plural, p.Child("names", "plural"))...)
	if isEstablished(old) {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(crd.Spec.Scope, old.Spec.Scope, p.Child("scope"))...)
	}
	return errs
}

// isEstablished reports whether the CRD's API is being served.
func isEstablished(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}
