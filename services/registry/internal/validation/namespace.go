package validation

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// standardFinalizers are the finalizer names kube allows without a domain.
var standardFinalizers = setOf(string(corev1.FinalizerKubernetes), "orphan", "foregroundDeletion")

// DefaultNamespace gives a new namespace the kubernetes finalizer (so the
// namespace controller empties it before it goes), the Active phase, and
// the kubernetes.io/metadata.name label that selectors use to pick a
// namespace by name.
func DefaultNamespace(obj *unstructured.Unstructured) {
	setDefault(ensureMap(obj.Object, "spec"), "finalizers", []any{string(corev1.FinalizerKubernetes)})
	setDefault(ensureMap(obj.Object, "status"), "phase", string(corev1.NamespaceActive))
	if name := obj.GetName(); name != "" {
		labels := ensureMap(ensureMap(obj.Object, "metadata"), "labels")
		setDefault(labels, corev1.LabelMetadataName, name)
	}
}

// ValidateNamespace checks the spec's finalizer names and that the
// kubernetes.io/metadata.name label, when present, is the namespace's own
// name. Kube overwrites that label; rejecting a mismatch instead keeps
// the user's input untouched while still stopping a namespace from
// posing as another to name-based selectors.
func ValidateNamespace(obj, old *unstructured.Unstructured) field.ErrorList {
	ns, _, errs := decodePair[corev1.Namespace](obj, old)
	if len(errs) > 0 {
		return errs
	}
	finalizersPath := field.NewPath("spec", "finalizers")
	for _, f := range ns.Spec.Finalizers {
		errs = append(errs, validateFinalizerName(string(f), finalizersPath)...)
	}
	if v, ok := ns.Labels[corev1.LabelMetadataName]; ok && ns.Name != "" && v != ns.Name {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "labels").Key(corev1.LabelMetadataName), v,
			"must be the namespace's name"))
	}
	return errs
}

// validateFinalizerName checks a finalizer: qualified, and standard when it
// has no domain. Kube reports these on the list, without an index.
func validateFinalizerName(name string, path *field.Path) field.ErrorList {
	errs := apimachineryvalidation.ValidateFinalizerName(name, path)
	if !strings.Contains(name, "/") && !standardFinalizers[name] {
		errs = append(errs, field.Invalid(path, name, "name is neither a standard finalizer name nor is it fully qualified"))
	}
	return errs
}
