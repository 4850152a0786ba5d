package validation

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxClientIPAffinitySeconds is the longest ClientIP session affinity: a day.
const maxClientIPAffinitySeconds = 86400

// DefaultService fills in kube's v1 Service defaults. It allocates nothing:
// cluster IPs and node ports are the allocator's business.
func DefaultService(obj *unstructured.Unstructured) {
	spec := ensureMap(obj.Object, "spec")
	if spec == nil {
		return
	}
	setDefault(spec, "type", string(corev1.ServiceTypeClusterIP))
	setDefault(spec, "sessionAffinity", string(corev1.ServiceAffinityNone))
	defaultSessionAffinityConfig(spec)
	for _, port := range mapsAt(spec, "ports") {
		setDefault(port, "protocol", string(corev1.ProtocolTCP))
		if p, ok := port["port"]; ok && (isUnset(port, "targetPort") || isZeroNumber(port["targetPort"])) {
			port["targetPort"] = p
		}
	}
	svcType := corev1.ServiceType(stringAt(spec, "type"))
	if externallyAccessible(svcType, len(listAt(spec, "externalIPs")) > 0) {
		setDefault(spec, "externalTrafficPolicy", string(corev1.ServiceExternalTrafficPolicyCluster))
	}
	if svcType == corev1.ServiceTypeLoadBalancer {
		setDefault(spec, "allocateLoadBalancerNodePorts", true)
	}
	if svcType != corev1.ServiceTypeExternalName {
		setDefault(spec, "internalTrafficPolicy", string(corev1.ServiceInternalTrafficPolicyCluster))
		setDefault(spec, "ipFamilyPolicy", string(defaultIPFamilyPolicy(spec)))
	}
}

// defaultSessionAffinityConfig gives ClientIP affinity its three-hour
// timeout and, as kube does, drops a config that affinity None never reads.
func defaultSessionAffinityConfig(spec map[string]any) {
	switch corev1.ServiceAffinity(stringAt(spec, "sessionAffinity")) {
	case corev1.ServiceAffinityNone:
		delete(spec, "sessionAffinityConfig")
	case corev1.ServiceAffinityClientIP:
		clientIP := ensureMap(ensureMap(spec, "sessionAffinityConfig"), "clientIP")
		setDefault(clientIP, "timeoutSeconds", int64(corev1.DefaultClientIPServiceAffinitySeconds))
	}
}

// defaultIPFamilyPolicy is SingleStack, except for a headless service
// without selector, whose endpoints may come in either family.
func defaultIPFamilyPolicy(spec map[string]any) corev1.IPFamilyPolicy {
	if stringAt(spec, "clusterIP") == corev1.ClusterIPNone && len(mapAt(spec, "selector")) == 0 {
		return corev1.IPFamilyPolicyRequireDualStack
	}
	return corev1.IPFamilyPolicySingleStack
}

// externallyAccessible reports whether a service is reachable from outside
// the cluster, which is when externalTrafficPolicy applies.
func externallyAccessible(t corev1.ServiceType, hasExternalIPs bool) bool {
	return t == corev1.ServiceTypeLoadBalancer || t == corev1.ServiceTypeNodePort ||
		(t == corev1.ServiceTypeClusterIP && hasExternalIPs)
}

// ValidateService checks a Service's spec and, on update, that an assigned
// cluster IP does not change.
func ValidateService(obj, old *unstructured.Unstructured) field.ErrorList {
	svc, oldSvc, errs := decodePair[corev1.Service](obj, old)
	if len(errs) > 0 {
		return errs
	}
	specPath := field.NewPath("spec")
	errs = validateServiceSpec(&svc.Spec, specPath)
	if oldSvc != nil {
		errs = append(errs, validateServiceUpdate(&svc.Spec, &oldSvc.Spec, specPath)...)
	}
	return errs
}

// validateServiceSpec checks a service spec.
func validateServiceSpec(spec *corev1.ServiceSpec, path *field.Path) field.ErrorList {
	errs := oneOf(spec.Type, path.Child("type"), corev1.ServiceTypeClusterIP, corev1.ServiceTypeExternalName,
		corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort)
	errs = append(errs, validateSessionAffinity(spec, path)...)
	errs = append(errs, validateServiceIPs(spec, path)...)
	errs = append(errs, validateServicePorts(spec, path)...)
	errs = append(errs, metav1validation.ValidateLabels(spec.Selector, path.Child("selector"))...)
	errs = append(errs, validateTrafficPolicies(spec, path)...)
	if spec.IPFamilyPolicy != nil {
		errs = append(errs, oneOf(*spec.IPFamilyPolicy, path.Child("ipFamilyPolicy"), corev1.IPFamilyPolicyPreferDualStack,
			corev1.IPFamilyPolicyRequireDualStack, corev1.IPFamilyPolicySingleStack)...)
	}
	for i, family := range spec.IPFamilies {
		errs = append(errs, oneOf(family, path.Child("ipFamilies").Index(i), corev1.IPv4Protocol, corev1.IPv6Protocol)...)
	}
	if spec.Type == corev1.ServiceTypeExternalName {
		errs = append(errs, validateExternalName(spec, path)...)
	}
	return errs
}

// validateSessionAffinity checks the affinity enum and its config.
func validateSessionAffinity(spec *corev1.ServiceSpec, path *field.Path) field.ErrorList {
	errs := oneOf(spec.SessionAffinity, path.Child("sessionAffinity"), corev1.ServiceAffinityClientIP, corev1.ServiceAffinityNone)
	configPath := path.Child("sessionAffinityConfig")
	switch spec.SessionAffinity {
	case corev1.ServiceAffinityNone:
		if spec.SessionAffinityConfig != nil {
			errs = append(errs, field.Forbidden(configPath, "must not be set when session affinity is None"))
		}
	case corev1.ServiceAffinityClientIP:
		timeoutPath := configPath.Child("clientIP", "timeoutSeconds")
		cfg := spec.SessionAffinityConfig
		switch {
		case cfg == nil || cfg.ClientIP == nil || cfg.ClientIP.TimeoutSeconds == nil:
			errs = append(errs, field.Required(timeoutPath, "when session affinity type is ClientIP"))
		case *cfg.ClientIP.TimeoutSeconds <= 0 || *cfg.ClientIP.TimeoutSeconds > maxClientIPAffinitySeconds:
			errs = append(errs, field.Invalid(timeoutPath, *cfg.ClientIP.TimeoutSeconds,
				fmt.Sprintf("must be greater than 0 and less than %d", maxClientIPAffinitySeconds)))
		}
	}
	return errs
}

// validateServiceIPs checks the cluster and external IPs' format.
func validateServiceIPs(spec *corev1.ServiceSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ip := spec.ClusterIP; ip != "" && ip != corev1.ClusterIPNone {
		errs = append(errs, validation.IsValidIPForLegacyField(path.Child("clusterIP"), ip, false, nil)...)
	}
	for i, ip := range spec.ClusterIPs {
		if ip != corev1.ClusterIPNone {
			errs = append(errs, validation.IsValidIPForLegacyField(path.Child("clusterIPs").Index(i), ip, false, nil)...)
		}
	}
	if len(spec.ClusterIPs) > 0 && spec.ClusterIP != "" && spec.ClusterIPs[0] != spec.ClusterIP {
		errs = append(errs, field.Invalid(path.Child("clusterIPs").Index(0), spec.ClusterIPs[0], "must match `clusterIP`"))
	}
	for i, ip := range spec.ExternalIPs {
		errs = append(errs, validation.IsValidIPForLegacyField(path.Child("externalIPs").Index(i), ip, false, nil)...)
	}
	return errs
}

// validateTrafficPolicies checks that externalTrafficPolicy is set exactly
// when the service is reachable from outside, and internalTrafficPolicy
// whenever the service has a cluster IP.
func validateTrafficPolicies(spec *corev1.ServiceSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	etpPath := path.Child("externalTrafficPolicy")
	if externallyAccessible(spec.Type, len(spec.ExternalIPs) > 0) {
		errs = append(errs, oneOf(spec.ExternalTrafficPolicy, etpPath,
			corev1.ServiceExternalTrafficPolicyCluster, corev1.ServiceExternalTrafficPolicyLocal)...)
	} else if spec.ExternalTrafficPolicy != "" {
		errs = append(errs, field.Invalid(etpPath, spec.ExternalTrafficPolicy, "may only be set for externally-accessible services"))
	}
	if spec.Type == corev1.ServiceTypeExternalName {
		return errs
	}
	itpPath := path.Child("internalTrafficPolicy")
	if spec.InternalTrafficPolicy == nil {
		return append(errs, field.Required(itpPath, ""))
	}
	return append(errs, oneOf(*spec.InternalTrafficPolicy, itpPath,
		corev1.ServiceInternalTrafficPolicyCluster, corev1.ServiceInternalTrafficPolicyLocal)...)
}

// validateExternalName checks an ExternalName service: a DNS name and no
// cluster IP.
func validateExternalName(spec *corev1.ServiceSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	namePath := path.Child("externalName")
	if spec.ExternalName == "" {
		errs = append(errs, field.Required(namePath, ""))
	} else {
		// A trailing dot marks a fully qualified name; it is not part of it.
		name := strings.TrimSuffix(spec.ExternalName, ".")
		errs = append(errs, invalidEach(namePath, spec.ExternalName, validation.IsDNS1123Subdomain(name))...)
	}
	if spec.ClusterIP != "" {
		errs = append(errs, field.Forbidden(path.Child("clusterIP"), "may not be set for ExternalName services"))
	}
	if len(spec.ClusterIPs) > 0 {
		errs = append(errs, field.Forbidden(path.Child("clusterIPs"), "may not be set for ExternalName services"))
	}
	return errs
}

// validateServiceUpdate keeps an assigned cluster IP: endpoints and DNS
// already point at it. A change of type to or from ExternalName, which
// has no cluster IP, is the exception.
func validateServiceUpdate(spec, old *corev1.ServiceSpec, path *field.Path) field.ErrorList {
	if old.ClusterIP == "" || old.Type == corev1.ServiceTypeExternalName || spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	return apimachineryvalidation.ValidateImmutableField(spec.ClusterIP, old.ClusterIP, path.Child("clusterIP"))
}
