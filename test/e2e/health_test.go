package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// Every service answers kube's three health endpoints without
// credentials, with its named checks: ?verbose lists them, ?exclude skips
// one, /readyz/<name> runs one alone.
func TestHealthOfEveryService(t *testing.T) {
	s := framework.StartStack(t, framework.StackOptions{})
	checks := map[string][]string{
		framework.StageAggregator: {"ping", "upstream-authn", "upstream-authz", "upstream-registry"},
		framework.StageRegistry:   {"ping", "etcd", "informer-sync"},
		framework.StageAuthn:      {"ping", "serviceaccount-informer"},
		framework.StageAuthz:      {"ping", "rbac-synced"},
		framework.StageAdmission:  {"ping", "informers-synced"},
	}
	for stage, names := range checks {
		base, client := s.BackendURL(stage), s.BackendClient(t)
		if stage == framework.StageAggregator {
			base, client = s.Aggregator.URL, s.HTTPClient(t)
		}
		probe := func(path string) (int, string) {
			t.Helper()
			resp, body := httpGet(t, client, base+path, "")
			return resp.StatusCode, body
		}
		for _, ep := range []string{"/healthz", "/livez", "/readyz"} {
			if code, body := probe(ep); code != http.StatusOK || body != "ok" {
				t.Errorf("%s %s = %d %q, want 200 ok", stage, ep, code, body)
			}
		}
		_, verbose := probe("/readyz?verbose")
		for _, name := range names {
			if !strings.Contains(verbose, "[+]"+name+" ok") {
				t.Errorf("%s /readyz?verbose lacks check %s:\n%s", stage, name, verbose)
			}
			if code, _ := probe("/readyz/" + name); code != http.StatusOK {
				t.Errorf("%s /readyz/%s = %d", stage, name, code)
			}
		}
		last := names[len(names)-1]
		if _, body := probe("/readyz?verbose&exclude=" + last); strings.Contains(body, last) {
			t.Errorf("%s /readyz?exclude=%s still ran it:\n%s", stage, last, body)
		}
		if code, _ := probe("/readyz/no-such-check"); code != http.StatusNotFound {
			t.Errorf("%s /readyz/no-such-check = %d, want 404", stage, code)
		}
	}
}
