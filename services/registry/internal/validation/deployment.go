package validation

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultDeployment fills in kube's apps/v1 Deployment defaults and the pod
// spec defaults of its template. (Kube gives templates the pod spec
// defaults but not the Pod-only ones such as enableServiceLinks.)
func DefaultDeployment(obj *unstructured.Unstructured) {
	spec := ensureMap(obj.Object, "spec")
	if spec == nil {
		return
	}
	setDefault(spec, "replicas", int64(1))
	setDefault(spec, "revisionHistoryLimit", int64(10))
	setDefault(spec, "progressDeadlineSeconds", int64(600))
	strategy := ensureMap(spec, "strategy")
	setDefault(strategy, "type", string(appsv1.RollingUpdateDeploymentStrategyType))
	if stringAt(strategy, "type") == string(appsv1.RollingUpdateDeploymentStrategyType) {
		rolling := ensureMap(strategy, "rollingUpdate")
		setDefault(rolling, "maxUnavailable", "25%")
		setDefault(rolling, "maxSurge", "25%")
	}
	if podSpec := mapAt(mapAt(spec, "template"), "spec"); podSpec != nil {
		defaultPodSpec(podSpec)
	}
}

// ValidateDeployment checks a Deployment's spec and, on update, that its
// selector has not changed: the ReplicaSets it owns are found by it.
func ValidateDeployment(obj, old *unstructured.Unstructured) field.ErrorList {
	specPath := field.NewPath("spec")
	podSpecPath := specPath.Child("template", "spec")
	if errs := podSpecQuantityErrs(mapAt(mapAt(mapAt(obj.Object, "spec"), "template"), "spec"), podSpecPath); len(errs) > 0 {
		return errs
	}
	d, oldD, errs := decodePair[appsv1.Deployment](obj, old)
	if len(errs) > 0 {
		return errs
	}
	errs = validateDeploymentSpec(&d.Spec, specPath)
	if oldD != nil {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(d.Spec.Selector, oldD.Spec.Selector, specPath.Child("selector"))...)
	}
	return errs
}

// validateDeploymentSpec checks the counts, selector, template and
// strategy of a deployment.
func validateDeploymentSpec(spec *appsv1.DeploymentSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Replicas != nil {
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(*spec.Replicas), path.Child("replicas"))...)
	}
	errs = append(errs, validateDeploymentSelector(spec, path)...)
	errs = append(errs, validateReplicaSetTemplate(&spec.Template, path.Child("template"))...)
	errs = append(errs, validateDeploymentStrategy(&spec.Strategy, path.Child("strategy"))...)
	errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), path.Child("minReadySeconds"))...)
	if spec.RevisionHistoryLimit != nil {
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(*spec.RevisionHistoryLimit), path.Child("revisionHistoryLimit"))...)
	}
	if p := spec.ProgressDeadlineSeconds; p != nil {
		deadlinePath := path.Child("progressDeadlineSeconds")
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(*p), deadlinePath)...)
		if *p <= spec.MinReadySeconds {
			errs = append(errs, field.Invalid(deadlinePath, *p, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

// validateDeploymentSelector checks that the selector is present, valid,
// not empty (it would adopt every pod in the namespace), and selects the
// template's own pods.
func validateDeploymentSelector(spec *appsv1.DeploymentSpec, path *field.Path) field.ErrorList {
	selPath := path.Child("selector")
	if spec.Selector == nil {
		return field.ErrorList{field.Required(selPath, "")}
	}
	errs := metav1validation.ValidateLabelSelector(spec.Selector, metav1validation.LabelSelectorValidationOptions{}, selPath)
	if len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
		return append(errs, field.Invalid(selPath, spec.Selector, "empty selector is invalid for deployment"))
	}
	selector, err := metav1.LabelSelectorAsSelector(spec.Selector)
	if err == nil && !selector.Matches(labels.Set(spec.Template.Labels)) {
		errs = append(errs, field.Invalid(path.Child("template", "metadata", "labels"), spec.Template.Labels,
			"`selector` does not match template `labels`"))
	}
	return errs
}

// validateReplicaSetTemplate checks a pod template of a workload that keeps
// its pods running: a valid pod spec that always restarts and has no
// deadline.
func validateReplicaSetTemplate(template *corev1.PodTemplateSpec, path *field.Path) field.ErrorList {
	metaPath := path.Child("metadata")
	errs := metav1validation.ValidateLabels(template.Labels, metaPath.Child("labels"))
	errs = append(errs, apimachineryvalidation.ValidateAnnotations(template.Annotations, metaPath.Child("annotations"))...)
	specPath := path.Child("spec")
	errs = append(errs, validatePodSpec(&template.Spec, specPath)...)
	if p := template.Spec.RestartPolicy; p != "" && p != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(specPath.Child("restartPolicy"), p, []corev1.RestartPolicy{corev1.RestartPolicyAlways}))
	}
	if template.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(specPath.Child("activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicaSet is not Supported"))
	}
	return errs
}
