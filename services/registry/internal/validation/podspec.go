package validation

import (
	"math"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// validatePodSpec checks a pod spec, a Pod's or a template's, at path.
func validatePodSpec(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	volumes, errs := validateVolumes(spec.Volumes, path.Child("volumes"))
	errs = append(errs, validateContainers(spec, volumes, path)...)
	errs = append(errs, oneOf(spec.RestartPolicy, path.Child("restartPolicy"),
		corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever)...)
	errs = append(errs, validateDNSPolicy(spec, path)...)
	errs = append(errs, metav1validation.ValidateLabels(spec.NodeSelector, path.Child("nodeSelector"))...)
	errs = append(errs, validateTolerations(spec.Tolerations, path.Child("tolerations"))...)
	if spec.ServiceAccountName != "" {
		errs = append(errs, dnsSubdomain(spec.ServiceAccountName, path.Child("serviceAccountName"))...)
	}
	if spec.NodeName != "" {
		errs = append(errs, dnsSubdomain(spec.NodeName, path.Child("nodeName"))...)
	}
	if spec.Hostname != "" {
		errs = append(errs, dnsLabel(spec.Hostname, path.Child("hostname"))...)
	}
	if spec.Subdomain != "" {
		errs = append(errs, dnsLabel(spec.Subdomain, path.Child("subdomain"))...)
	}
	if d := spec.ActiveDeadlineSeconds; d != nil && (*d < 1 || *d > math.MaxInt32) {
		errs = append(errs, field.Invalid(path.Child("activeDeadlineSeconds"), *d, validation.InclusiveRangeError(1, math.MaxInt32)))
	}
	if spec.Resources != nil {
		errs = append(errs, validateResourceRequirements(spec.Resources, path.Child("resources"))...)
	}
	return errs
}

// validateDNSPolicy checks the DNS policy, and that policy None comes with
// the dnsConfig it would otherwise lack.
func validateDNSPolicy(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	errs := oneOf(spec.DNSPolicy, path.Child("dnsPolicy"),
		corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone)
	if spec.DNSPolicy == corev1.DNSNone && spec.DNSConfig == nil {
		errs = append(errs, field.Required(path.Child("dnsConfig"), "must provide `dnsConfig` when `dnsPolicy` is None"))
	}
	return errs
}

// validateVolumes checks volume names and that each volume has exactly one
// source. It returns the set of names for the containers' mounts.
func validateVolumes(volumes []corev1.Volume, path *field.Path) (map[string]bool, field.ErrorList) {
	names := map[string]bool{}
	var errs field.ErrorList
	for i := range volumes {
		vol, idx := &volumes[i], path.Index(i)
		errs = append(errs, requiredValid(vol.Name, idx.Child("name"), dnsLabel)...)
		if names[vol.Name] {
			errs = append(errs, field.Duplicate(idx.Child("name"), vol.Name))
		}
		names[vol.Name] = true
		errs = append(errs, validateVolumeSource(&vol.VolumeSource, idx)...)
	}
	return names, errs
}

// validateVolumeSource checks that exactly one source is set. The sources
// are the pointer fields of VolumeSource, named by their JSON tags.
func validateVolumeSource(src *corev1.VolumeSource, path *field.Path) field.ErrorList {
	v := reflect.ValueOf(src).Elem()
	var set []string
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			set = append(set, name)
		}
	}
	switch {
	case len(set) == 0:
		return field.ErrorList{field.Required(path, "must specify a volume type")}
	case len(set) > 1:
		return field.ErrorList{field.Forbidden(path.Child(set[1]), "may not specify more than 1 volume type")}
	}
	return nil
}

// validateTolerations checks the operator and effect enums and the rules
// that tie them to value and tolerationSeconds.
func validateTolerations(tolerations []corev1.Toleration, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range tolerations {
		idx := path.Index(i)
		if t.Key != "" {
			errs = append(errs, qualifiedName(t.Key, idx.Child("key"))...)
		} else if t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(idx.Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(idx.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, field.NotSupported(idx.Child("operator"), t.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
		}
		if t.Effect != "" && t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectPreferNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.NotSupported(idx.Child("effect"), t.Effect,
				[]corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(idx.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
	}
	return errs
}
