package k8s

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
)

// stages are the stateless services, each a Deployment of its own.
var stages = []string{"aggregator", "registry", "authn", "authz", "admission"}

// TestManifests renders `kubectl kustomize deploy/k8s` and the dev
// overlay after the documented certificate step, decodes every object
// strictly against k8s.io/api, and checks what applying them relies on:
// references between objects resolve, probes hit served paths on declared
// ports, every stage scales on its own and may be scraped, and the
// NetworkPolicies let only the aggregator (and a Prometheus) reach the
// registry and only the registry reach etcd and admission.
func TestManifests(t *testing.T) {
	root := renderTree(t)
	t.Run("base", func(t *testing.T) {
		m := index(t, render(t, root))
		m.checkReferences(t)
		m.checkFlags(t)
		m.checkEtcdMembers(t, 3)
		for _, s := range stages {
			m.checkScalesOnItsOwn(t, s)
			m.checkScraped(t, s)
		}
		m.checkTrust(t)
	})
	t.Run("dev overlay", func(t *testing.T) {
		m := index(t, render(t, filepath.Join(root, "overlays", "dev")))
		m.checkReferences(t)
		m.checkEtcdMembers(t, 1)
		for _, s := range stages {
			m.checkScraped(t, s)
		}
		for _, w := range m.workloads {
			if w.replicas != 1 {
				t.Errorf("%s/%s: %d replicas, want 1 in the dev overlay", w.kind, w.name, w.replicas)
			}
		}
		if len(m.hpas) > 0 || len(m.pdbs) > 0 {
			t.Errorf("dev overlay: %d autoscalers and %d disruption budgets, want none", len(m.hpas), len(m.pdbs))
		}
		m.checkTrust(t)
	})
}

func (m *manifests) checkReferences(t *testing.T) {
	t.Helper()
	if len(m.workloads) != len(stages)+1 {
		t.Errorf("%d workloads, want one per stage and etcd", len(m.workloads))
	}
	for _, w := range m.workloads {
		m.checkWorkload(t, w)
	}
	for _, s := range m.services {
		m.checkService(t, s)
	}
	for _, np := range m.policies {
		m.checkPolicy(t, np)
	}
	for _, pdb := range m.pdbs {
		if len(m.selecting(t, pdb.Spec.Selector)) != 1 {
			t.Errorf("PodDisruptionBudget %s selects %d workloads, want 1", pdb.Name, len(m.selecting(t, pdb.Spec.Selector)))
		}
	}
	for _, hpa := range m.hpas {
		ref := hpa.Spec.ScaleTargetRef
		if !slices.ContainsFunc(m.workloads, func(w workload) bool { return w.kind == ref.Kind && w.name == ref.Name }) {
			t.Errorf("HorizontalPodAutoscaler %s scales %s/%s, which does not exist", hpa.Name, ref.Kind, ref.Name)
		}
	}
	for name, ss := range m.statefulSet {
		if svc, ok := m.services[ss.Spec.ServiceName]; !ok || svc.Spec.ClusterIP != corev1.ClusterIPNone {
			t.Errorf("StatefulSet %s: service %q is missing or not headless", name, ss.Spec.ServiceName)
		}
	}
}

// checkScalesOnItsOwn: a stage has its own Deployment, a Service (headless
// for the backends, so that the aggregator sees every replica), a
// PodDisruptionBudget and an autoscaler.
func (m *manifests) checkScalesOnItsOwn(t *testing.T, stage string) {
	t.Helper()
	svc, ok := m.services[stage]
	switch {
	case !ok:
		t.Errorf("%s: no Service", stage)
	case stage != "aggregator" && svc.Spec.ClusterIP != corev1.ClusterIPNone:
		t.Errorf("Service %s is not headless: the aggregator would see one address, not every replica", stage)
	}
	if !slices.ContainsFunc(m.pdbs, func(p *policyv1.PodDisruptionBudget) bool { return p.Name == stage }) {
		t.Errorf("%s: no PodDisruptionBudget", stage)
	}
	if !slices.ContainsFunc(m.hpas, func(h *autoscalingv2.HorizontalPodAutoscaler) bool { return h.Spec.ScaleTargetRef.Name == stage }) {
		t.Errorf("%s: no HorizontalPodAutoscaler", stage)
	}
}

// checkEtcdMembers: the StatefulSet's replicas, the initial cluster and
// the registry's etcd servers agree.
func (m *manifests) checkEtcdMembers(t *testing.T, want int32) {
	t.Helper()
	ss, ok := m.statefulSet["etcd"]
	if !ok {
		t.Fatal("no etcd StatefulSet")
	}
	if *ss.Spec.Replicas != want || len(ss.Spec.VolumeClaimTemplates) == 0 {
		t.Errorf("etcd: %d replicas and %d claim templates, want %d with a PersistentVolumeClaim each", *ss.Spec.Replicas, len(ss.Spec.VolumeClaimTemplates), want)
	}
	var cluster, servers string
	for name, cm := range m.configMaps {
		switch {
		case strings.HasPrefix(name, "etcd-config"):
			cluster = cm.Data["ETCD_INITIAL_CLUSTER"]
		case strings.HasPrefix(name, "registry-config"):
			servers = cm.Data["ETCD_SERVERS"]
		}
	}
	if n := len(strings.Split(cluster, ",")); int32(n) != want {
		t.Errorf("ETCD_INITIAL_CLUSTER has %d members, want %d: %s", n, want, cluster)
	}
	if n := len(strings.Split(servers, ",")); int32(n) != want {
		t.Errorf("the registry's ETCD_SERVERS has %d members, want %d: %s", n, want, servers)
	}
}

// checkTrust: DESIGN.md's hops, a Prometheus's scrapes, and nothing else.
func (m *manifests) checkTrust(t *testing.T) {
	t.Helper()
	want := map[string][]string{
		"aggregator": {"*", metricsReaders},
		"registry":   {"aggregator", metricsReaders},
		"authn":      {"aggregator", metricsReaders},
		"authz":      {"aggregator", metricsReaders},
		"admission":  {metricsReaders, "registry"},
		"etcd":       {"etcd", "registry"},
	}
	for app, from := range want {
		if got := m.ingressFrom(t, app); !slices.Equal(got, from) {
			t.Errorf("NetworkPolicies let %v reach %s, want %v", got, app, from)
		}
	}
	if !slices.ContainsFunc(m.policies, func(np *networkingv1.NetworkPolicy) bool {
		return len(np.Spec.PodSelector.MatchLabels) == 0 && len(np.Spec.Ingress) == 0
	}) {
		t.Error("no default-deny NetworkPolicy: pods without a policy of their own would be open")
	}
}
