package k8s

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// egressAllows reports whether the NetworkPolicies let pods of app
// connect to target's port: always, unless a policy selecting app
// restricts its egress; then only if one of the rules allows it. Peers
// are judged conservatively: an IP block, or a namespace selector with
// labels, is taken not to reach target.
func (m *manifests) egressAllows(t *testing.T, app, target, port string) bool {
	t.Helper()
	from, to := m.workload(t, app), m.workload(t, target)
	isolated := false
	for _, np := range m.policies {
		sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
		if err != nil || !sel.Matches(labels.Set(from.template.Labels)) || !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) {
			continue
		}
		isolated = true
		for _, rule := range np.Spec.Egress {
			if allowsPort(rule.Ports, to.template.Spec.Containers[0].Ports, port) && allowsPeer(rule.To, to) {
				return true
			}
		}
	}
	return !isolated
}

func (m *manifests) workload(t *testing.T, name string) workload {
	t.Helper()
	i := slices.IndexFunc(m.workloads, func(w workload) bool { return w.name == name })
	if i < 0 {
		t.Fatalf("no workload %s", name)
	}
	return m.workloads[i]
}

// allowsPort: a rule's ports (none means all) include the container port
// named name.
func allowsPort(rule []networkingv1.NetworkPolicyPort, declared []corev1.ContainerPort, name string) bool {
	i := slices.IndexFunc(declared, func(p corev1.ContainerPort) bool { return p.Name == name })
	if i < 0 {
		return false
	}
	return len(rule) == 0 || slices.ContainsFunc(rule, func(p networkingv1.NetworkPolicyPort) bool {
		return p.Port == nil ||
			(p.Port.Type == intstr.String && p.Port.StrVal == name) ||
			(p.Port.Type == intstr.Int && p.Port.IntVal == declared[i].ContainerPort)
	})
}

// allowsPeer: a rule's peers (none means all) include w's pods.
func allowsPeer(to []networkingv1.NetworkPolicyPeer, w workload) bool {
	return len(to) == 0 || slices.ContainsFunc(to, func(p networkingv1.NetworkPolicyPeer) bool {
		if p.IPBlock != nil || (p.NamespaceSelector != nil && (len(p.NamespaceSelector.MatchLabels) > 0 || len(p.NamespaceSelector.MatchExpressions) > 0)) {
			return false
		}
		if p.PodSelector == nil {
			return true
		}
		sel, err := metav1.LabelSelectorAsSelector(p.PodSelector)
		return err == nil && sel.Matches(labels.Set(w.template.Labels))
	})
}
