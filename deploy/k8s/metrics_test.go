package k8s

import (
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// backends are the stages that authorize their /metrics by asking the API
// through the aggregator (pkg/observe), with the credentials of their
// --kubeconfig; the aggregator authorizes with its own chain.
var backends = []string{"registry", "authn", "authz", "admission"}

// metricsReaders is how outsidePeer names the peer every stage lets in
// for scraping: a Prometheus, wherever it runs.
const metricsReaders = "kubesplit.io/metrics-reader=true in namespaces *"

// checkScraped: a stage's pods carry the prometheus.io annotations
// pointing at its https port, and a backend has the --kubeconfig without
// which nobody may read its /metrics.
func (m *manifests) checkScraped(t *testing.T, stage string) {
	t.Helper()
	w := m.workload(t, stage)
	c := w.template.Spec.Containers[0]
	i := slices.IndexFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.Name == "https" })
	if i < 0 {
		t.Errorf("%s: no https port", stage)
		return
	}
	want := map[string]string{
		"prometheus.io/scrape": "true",
		"prometheus.io/port":   strconv.Itoa(int(c.Ports[i].ContainerPort)),
		"prometheus.io/scheme": "https",
		"prometheus.io/path":   "/metrics",
	}
	for k, v := range want {
		if got := w.template.Annotations[k]; got != v {
			t.Errorf("%s/%s: pod annotation %s is %q, want %q", w.kind, w.name, k, got, v)
		}
	}
	if !slices.Contains(backends, stage) {
		return
	}
	if !slices.ContainsFunc(c.Args, func(a string) bool { f := flagName.FindStringSubmatch(a); return f != nil && f[1] == "kubeconfig" }) {
		t.Errorf("%s/%s has no --kubeconfig: nobody could read its /metrics", w.kind, w.name)
	}
	if !m.egressAllows(t, stage, "aggregator", "https") {
		t.Errorf("NetworkPolicies keep %s from reaching the aggregator, which its --kubeconfig names", stage)
	}
}
