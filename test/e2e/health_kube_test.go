package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// The checks kube's conformance test "[sig-api-machinery] health handlers
// should contain necessary checks" (test/e2e/apimachinery/
// health_handlers.go of kubernetes v1.37.2) requires, as it writes them.
// Its storageReadinessCheck is added to all three when the
// WatchCacheInitializationPostStartHook gate is on, which it is: GA and
// locked on in 1.37.
var (
	kubeLivezChecks = []string{
		"[+]ping ok",
		"[+]log ok",
		"[+]etcd ok",
		"[+]poststarthook/start-apiserver-admission-initializer ok",
		"[+]poststarthook/generic-apiserver-start-informers ok",
		"[+]poststarthook/start-apiextensions-informers ok",
		"[+]poststarthook/start-apiextensions-controllers ok",
		"[+]poststarthook/crd-informer-synced ok",
		"[+]poststarthook/bootstrap-controller ok",
		"[+]poststarthook/start-system-namespaces-controller ok",
		"[+]poststarthook/start-service-ip-repair-controllers ok",
		"[+]poststarthook/scheduling/bootstrap-system-priority-classes ok",
		"[+]poststarthook/start-cluster-authentication-info-controller ok",
		"[+]poststarthook/start-kube-aggregator-informers ok",
		"[+]poststarthook/apiservice-registration-controller ok",
		"[+]poststarthook/apiservice-status-local-available-controller ok",
		"[+]poststarthook/apiservice-status-remote-available-controller ok",
		"[+]poststarthook/kube-apiserver-autoregistration ok",
		"[+]autoregister-completion ok",
		"[+]poststarthook/apiservice-openapi-controller ok",
		"[+]poststarthook/storage-readiness ok",
	}
	// /healthz requires the same as /livez, /readyz informer-sync too.
	kubeHealthzChecks = kubeLivezChecks
	kubeReadyzChecks  = append(slices.Clone(kubeLivezChecks), "[+]informer-sync ok")
)

// registryDependents are the aggregator's checks that stand on the
// registry (on etcd behind it): with the registry down, /readyz fails
// each of them, and nothing else but upstream-registry.
var registryDependents = []string{
	"etcd",
	"informer-sync",
	"poststarthook/start-apiserver-admission-initializer", // without --admission-url: the registry's bootstrap
	"poststarthook/generic-apiserver-start-informers",
	"poststarthook/storage-readiness",
	"poststarthook/start-apiextensions-informers",
	"poststarthook/start-apiextensions-controllers",
	"poststarthook/crd-informer-synced",
	"poststarthook/bootstrap-controller",
	"poststarthook/start-system-namespaces-controller",
	"poststarthook/start-service-ip-repair-controllers",
	"poststarthook/scheduling/bootstrap-system-priority-classes",
	"poststarthook/kube-apiserver-autoregistration",
	"autoregister-completion",
	"poststarthook/apiservice-openapi-controller",
	"upstream-registry",
}

// The aggregator's health endpoints list every check kube's conformance
// test requires, each ok, read as that test reads them (client-go's REST
// client, until 200); stopping the registry fails etcd and what stands on
// it on /readyz, with the reason, while the rest stay ok and /livez keeps
// the post-start hooks that passed; the registry back, all pass again.
func TestHealthHandlersContainKubesChecks(t *testing.T) {
	s := framework.StartStack(t, framework.StackOptions{})
	admin := s.Client(t, s.AdminToken)
	for _, c := range []struct {
		path     string
		required []string
	}{
		{"/healthz?verbose=1", kubeHealthzChecks},
		{"/livez?verbose=1", kubeLivezChecks},
		{"/readyz?verbose=1", kubeReadyzChecks},
	} {
		if err := kubeTestPath(t.Context(), admin, c.path, c.required); err != nil {
			t.Error(err)
		}
	}

	s.Stop(t, framework.StageRegistry)
	probe, base := s.HTTPClient(t), s.Aggregator.URL
	var body string
	started := time.Now()
	for {
		_, body = healthGet(t, probe, base+"/readyz?verbose")
		pending := unmet(body, "[-]", registryDependents)
		if len(pending) == 0 {
			break
		}
		if time.Since(started) > 30*time.Second {
			t.Fatalf("30s after the registry stopped, /readyz does not fail %v:\n%s", pending, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("/readyz failed what stands on the registry within %v:\n%s", time.Since(started).Round(time.Millisecond), body)
	if !strings.Contains(body, "[-]etcd failed: registry ") {
		t.Errorf("/readyz does not say why etcd failed:\n%s", body)
	}
	for _, line := range strings.Split(body, "\n") {
		name, failed := strings.CutPrefix(line, "[-]")
		name, _, _ = strings.Cut(name, " failed")
		if failed && !slices.Contains(registryDependents, name) {
			t.Errorf("with the registry down, /readyz fails %q, which does not stand on it", line)
		}
	}
	if code, live := healthGet(t, probe, base+"/livez?verbose"); code != http.StatusInternalServerError ||
		!strings.Contains(live, "[-]etcd failed") || !strings.Contains(live, "[+]poststarthook/bootstrap-controller ok") {
		t.Errorf("with the registry down, /livez = %d, want etcd failing and the post-start hooks that passed still ok:\n%s", code, live)
	}
	// Bounded: the checks of a down upstream fail fast, never hang.
	start := time.Now()
	if code, _ := healthGet(t, probe, base+"/readyz"); code != http.StatusInternalServerError || time.Since(start) > 5*time.Second {
		t.Errorf("/readyz with the registry down = %d after %v, want 500 within 5s", code, time.Since(start))
	}
	if code, one := healthGet(t, probe, base+"/readyz/poststarthook/apiservice-registration-controller"); code != http.StatusOK {
		t.Errorf("/readyz/poststarthook/apiservice-registration-controller with the registry down = %d %s, want 200", code, one)
	}
	if code, excluded := healthGet(t, probe, base+"/readyz?verbose&"+excludeAll(registryDependents)); code != http.StatusOK {
		t.Errorf("/readyz excluding what stands on the registry = %d:\n%s", code, excluded)
	}

	s.Start(t, framework.StageRegistry)
	s.WaitReady(t, 90*time.Second)
	if err := kubeTestPath(t.Context(), admin, "/readyz?verbose=1", kubeReadyzChecks); err != nil {
		t.Errorf("with the registry back: %v", err)
	}
}

// kubeTestPath is kube's testPath: GET path with the client's REST client
// every 100ms until it answers 200 (for 30s at most), then every required
// line must be in the answer.
func kubeTestPath(ctx context.Context, client kubernetes.Interface, path string, required []string) error {
	var body []byte
	var status int
	deadline := time.Now().Add(30 * time.Second)
	for {
		result := client.CoreV1().RESTClient().Get().RequestURI(path).Do(ctx)
		result.StatusCode(&status)
		if status == http.StatusOK {
			var err error
			if body, err = result.Raw(); err != nil {
				return err
			}
			break
		}
		if time.Now().After(deadline) {
			raw, _ := result.Raw()
			return fmt.Errorf("%s did not answer 200 within 30s: %d %s", path, status, raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
	lines := strings.Split(string(body), "\n")
	var missing []string
	for _, want := range required {
		if !slices.Contains(lines, want) {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing required %s checks: %v in: %s", path, missing, body)
	}
	return nil
}

// healthGet is a GET of url without credentials, as a probe sends it
// (client-go keeps no body of a 500): status and body.
func healthGet(t *testing.T, client *http.Client, url string) (int, string) {
	t.Helper()
	resp, body := httpGet(t, client, url, "")
	return resp.StatusCode, body
}

// unmet are the names without a line "<prefix><name> …" in body.
func unmet(body, prefix string, names []string) []string {
	var out []string
	for _, name := range names {
		if !strings.Contains(body, "\n"+prefix+name+" ") && !strings.HasPrefix(body, prefix+name+" ") {
			out = append(out, name)
		}
	}
	return out
}

func excludeAll(names []string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = "exclude=" + n
	}
	return strings.Join(parts, "&")
}
