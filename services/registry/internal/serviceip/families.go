package serviceip

import (
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/validation"
)

// This file is kube's defaulting of a Service's IP families
// (pkg/registry/core/service/storage: initIPFamilyFields,
// normalizeClusterIPs, patchAllocatedValues, defaultOnRead), which the
// REST storage does from the cluster's configured families rather than in
// the type's defaulting. old is nil on create.

// initIPFamilies sets ipFamilyPolicy and ipFamilies from the cluster's
// families and what the Service asks for, refusing what the cluster cannot
// give, as kube's initIPFamilyFields does.
func (a *Allocator) initIPFamilies(svc, old *api.Service) error {
	if svc.Spec.Type == api.ServiceTypeExternalName || matchingPreferDualStack(svc, old) {
		return nil
	}
	if svc.Spec.IPFamilyPolicy == nil {
		policy := api.IPFamilyPolicySingleStack
		switch {
		case old != nil && old.Spec.IPFamilyPolicy != nil:
			policy = *old.Spec.IPFamilyPolicy
		case headlessSelectorless(svc):
			policy = api.IPFamilyPolicyRequireDualStack
		}
		svc.Spec.IPFamilyPolicy = &policy
	}
	if el := validation.ValidateServiceClusterIPsRelatedFields(svc, old); len(el) != 0 {
		return apierrors.NewInvalid(api.Kind("Service"), svc.Name, el)
	}
	policy := *svc.Spec.IPFamilyPolicy
	var el field.ErrorList
	if old != nil {
		if policy == api.IPFamilyPolicySingleStack {
			// Going single-stack with the same IPs and families is clear
			// intent: the secondary is dropped (clusterIPs[0] is immutable).
			if slices.Equal(old.Spec.ClusterIPs, svc.Spec.ClusterIPs) && len(svc.Spec.ClusterIPs) > 1 {
				svc.Spec.ClusterIPs = svc.Spec.ClusterIPs[0:1]
			}
			if slices.Equal(old.Spec.IPFamilies, svc.Spec.IPFamilies) && len(svc.Spec.IPFamilies) > 1 {
				svc.Spec.IPFamilies = svc.Spec.IPFamilies[0:1]
			}
		} else {
			if n := len(svc.Spec.ClusterIPs); n > 0 && n < len(old.Spec.ClusterIPs) {
				el = append(el, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), svc.Spec.IPFamilyPolicy,
					"must be 'SingleStack' to release the secondary cluster IP"))
			}
			if n := len(svc.Spec.IPFamilies); n > 0 && n < len(old.Spec.IPFamilies) {
				el = append(el, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), svc.Spec.IPFamilyPolicy,
					"must be 'SingleStack' to release the secondary IP family"))
			}
		}
	}
	if policy == api.IPFamilyPolicySingleStack {
		if len(svc.Spec.ClusterIPs) == 2 {
			el = append(el, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), svc.Spec.IPFamilyPolicy,
				"must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"))
		}
		if len(svc.Spec.IPFamilies) == 2 {
			el = append(el, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), svc.Spec.IPFamilyPolicy,
				"must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"))
		}
	}
	// Families follow the IPs asked for.
	for i, s := range svc.Spec.ClusterIPs {
		if s == api.ClusterIPNone {
			break
		}
		ip, _ := parseIP(s) // validated above
		fam := familyOf(ip)
		if i >= len(svc.Spec.IPFamilies) {
			if !a.hasFamily(fam) {
				el = append(el, field.Invalid(field.NewPath("spec", "clusterIPs").Index(i), svc.Spec.ClusterIPs,
					fmt.Sprintf("%s is not configured on this cluster", fam)))
			} else {
				svc.Spec.IPFamilies = append(svc.Spec.IPFamilies, fam)
			}
		}
	}
	if len(el) > 0 {
		return apierrors.NewInvalid(api.Kind("Service"), svc.Name, el)
	}
	if headlessSelectorless(svc) {
		// Its endpoints may be of either family, on any cluster.
		if len(svc.Spec.IPFamilies) == 0 {
			svc.Spec.IPFamilies = []api.IPFamily{a.families[0]}
		}
		if len(svc.Spec.IPFamilies) < 2 && policy != api.IPFamilyPolicySingleStack {
			svc.Spec.IPFamilies = append(svc.Spec.IPFamilies, otherFamily(svc.Spec.IPFamilies[0]))
		}
		return nil
	}
	if policy == api.IPFamilyPolicyRequireDualStack && len(a.families) < 2 {
		el = append(el, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), svc.Spec.IPFamilyPolicy,
			"this cluster is not configured for dual-stack services"))
	}
	for i, fam := range svc.Spec.IPFamilies {
		if !a.hasFamily(fam) {
			el = append(el, field.Invalid(field.NewPath("spec", "ipFamilies").Index(i), fam, "not configured on this cluster"))
		}
	}
	if len(el) > 0 {
		return apierrors.NewInvalid(api.Kind("Service"), svc.Name, el)
	}
	if len(svc.Spec.IPFamilies) == 0 {
		svc.Spec.IPFamilies = []api.IPFamily{a.families[0]}
	}
	if policy != api.IPFamilyPolicySingleStack && len(svc.Spec.IPFamilies) == 1 && len(a.families) == 2 {
		svc.Spec.IPFamilies = append(svc.Spec.IPFamilies, otherFamily(svc.Spec.IPFamilies[0]))
	}
	return nil
}

func (a *Allocator) hasFamily(fam api.IPFamily) bool { return slices.Contains(a.families, fam) }

func otherFamily(fam api.IPFamily) api.IPFamily {
	if fam == api.IPv4Protocol {
		return api.IPv6Protocol
	}
	return api.IPv4Protocol
}

func headlessSelectorless(svc *api.Service) bool {
	return svc.Spec.ClusterIP == api.ClusterIPNone && len(svc.Spec.Selector) == 0
}

func headless(svc *api.Service) bool {
	return len(svc.Spec.ClusterIPs) > 0 && svc.Spec.ClusterIPs[0] == api.ClusterIPNone
}

// matchingPreferDualStack reports an update of a PreferDualStack Service
// that leaves its type, IPs and families as they are: it is neither
// upgraded nor downgraded when the cluster's families changed.
func matchingPreferDualStack(svc, old *api.Service) bool {
	if old == nil || svc.Spec.IPFamilyPolicy == nil || old.Spec.Type != svc.Spec.Type {
		return false
	}
	switch svc.Spec.Type {
	case api.ServiceTypeClusterIP, api.ServiceTypeNodePort, api.ServiceTypeLoadBalancer:
	default:
		return false
	}
	prefer := func(s *api.Service) bool {
		return s.Spec.IPFamilyPolicy == nil || *s.Spec.IPFamilyPolicy == api.IPFamilyPolicyPreferDualStack
	}
	return prefer(svc) && prefer(old) &&
		slices.Equal(old.Spec.ClusterIPs, svc.Spec.ClusterIPs) && slices.Equal(old.Spec.IPFamilies, svc.Spec.IPFamilies)
}

// normalizeClusterIPs keeps clusterIP and clusterIPs in step, reading what
// an old client that knows only clusterIP meant.
func normalizeClusterIPs(svc, old *api.Service) {
	if old == nil {
		if svc.Spec.ClusterIP != "" && len(svc.Spec.ClusterIPs) == 0 {
			svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
		}
		return
	}
	if len(old.Spec.ClusterIPs) > 0 && len(svc.Spec.ClusterIPs) == 0 && old.Spec.ClusterIP == svc.Spec.ClusterIP {
		svc.Spec.ClusterIPs = old.Spec.ClusterIPs
	}
	if old.Spec.ClusterIP != svc.Spec.ClusterIP && slices.Equal(old.Spec.ClusterIPs, svc.Spec.ClusterIPs) {
		if old.Spec.ClusterIP != "" && svc.Spec.ClusterIP == "" {
			svc.Spec.ClusterIPs = nil
		} else {
			svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
		}
	}
}

// patchAllocatedValues keeps, on an update that leaves them out, the
// values allocated before (a resubmitted manifest without clusterIP or
// nodePort succeeds).
func patchAllocatedValues(svc, old *api.Service) {
	if needsClusterIP(old) && needsClusterIP(svc) {
		if svc.Spec.ClusterIP == "" {
			svc.Spec.ClusterIP = old.Spec.ClusterIP
		}
		if len(svc.Spec.ClusterIPs) == 0 && len(old.Spec.ClusterIPs) > 0 {
			svc.Spec.ClusterIPs = old.Spec.ClusterIPs
		}
	}
	if needsNodePort(old) && needsNodePort(svc) {
		oldUsed, newUsed := map[int32]bool{}, map[int32]bool{}
		for _, p := range old.Spec.Ports {
			oldUsed[p.NodePort] = p.NodePort != 0
		}
		for _, p := range svc.Spec.Ports {
			newUsed[p.NodePort] = p.NodePort != 0
		}
		byName := map[string]int32{}
		for _, p := range old.Spec.Ports {
			byName[p.Name] = p.NodePort
		}
		for i := range svc.Spec.Ports {
			p := &svc.Spec.Ports[i]
			if p.NodePort == 0 {
				if v := byName[p.Name]; !(oldUsed[v] && newUsed[v]) {
					p.NodePort = v
				}
			}
		}
	}
	if needsHealthCheckNodePort(old) && needsHealthCheckNodePort(svc) && svc.Spec.HealthCheckNodePort == 0 {
		svc.Spec.HealthCheckNodePort = old.Spec.HealthCheckNodePort
	}
}

func needsClusterIP(svc *api.Service) bool { return svc.Spec.Type != api.ServiceTypeExternalName }

func needsNodePort(svc *api.Service) bool {
	switch svc.Spec.Type {
	case api.ServiceTypeNodePort:
		return true
	case api.ServiceTypeLoadBalancer:
		return svc.Spec.AllocateLoadBalancerNodePorts == nil || *svc.Spec.AllocateLoadBalancerNodePorts
	}
	return false
}

func needsHealthCheckNodePort(svc *api.Service) bool {
	return svc.Spec.Type == api.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == api.ServiceExternalTrafficPolicyLocal
}

// defaultOnRead fills in the families of a Service stored before they
// were set (kube's read decorator), so an update compares like with like.
func (a *Allocator) defaultOnRead(svc *api.Service) {
	normalizeClusterIPs(svc, nil)
	if svc.Spec.Type == api.ServiceTypeExternalName {
		svc.Spec.InternalTrafficPolicy = nil
		return
	}
	if len(svc.Spec.IPFamilies) > 0 {
		return
	}
	single, dual := api.IPFamilyPolicySingleStack, api.IPFamilyPolicyRequireDualStack
	switch {
	case svc.Spec.ClusterIP == api.ClusterIPNone && len(svc.Spec.Selector) == 0:
		svc.Spec.IPFamilyPolicy = &dual
		svc.Spec.IPFamilies = []api.IPFamily{a.families[0], otherFamily(a.families[0])}
	case svc.Spec.ClusterIP == api.ClusterIPNone:
		svc.Spec.IPFamilyPolicy = &single
		svc.Spec.IPFamilies = []api.IPFamily{a.families[0]}
	default:
		for _, s := range svc.Spec.ClusterIPs {
			fam := api.IPv4Protocol
			if ip, ok := parseIP(s); ok && ip.Is6() {
				fam = api.IPv6Protocol
			}
			svc.Spec.IPFamilies = append(svc.Spec.IPFamilies, fam)
		}
		switch len(svc.Spec.IPFamilies) {
		case 1:
			svc.Spec.IPFamilyPolicy = &single
		case 2:
			svc.Spec.IPFamilyPolicy = &dual
		}
	}
}
