package e2e

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/extapi"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

const (
	wardleAPIService = "v1alpha1.wardle.example.com"
	flundersPath     = "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders"
)

// TestAPIServiceAggregation: an extension API server registered with an
// APIService (its caBundle, and the kubesplit.io/url annotation since it
// runs outside a cluster) trusts the aggregator through what the
// aggregator published in kube-system/extension-apiserver-authentication,
// turns Available, shows in kubectl api-resources, serves kubectl get
// with the caller's identity in the front-proxy headers, never sees a
// caller the aggregator forbade, turns unavailable (503) when stopped, and
// is gone once the APIService is deleted.
func TestAPIServiceAggregation(t *testing.T) {
	bobToken := "bob-token-0123456789"
	s := framework.StartStack(t, framework.StackOptions{Users: []string{bobToken + `,bob,uid-bob,"team-b"`}})
	admin := s.Aggregator.Kubeconfig(t, "admin", s.AdminToken)
	bob := s.Aggregator.Kubeconfig(t, "bob", bobToken)

	ext, caPEM := startExtension(t, s)
	apply(t, s, admin, apiServiceYAML(ext.URL, caPEM))
	polltest.Until(t, 30*time.Second, "the APIService to be Available", func() bool {
		return availableStatus(t, s, admin) == "True"
	})

	out, err := s.Aggregator.Kubectl(t, admin, "", "api-resources", "--api-group=wardle.example.com")
	if err != nil || !strings.Contains(out, "flunders") || !strings.Contains(out, "wardle.example.com/v1alpha1") || !strings.Contains(out, "Flunder") {
		t.Fatalf("kubectl api-resources --api-group=wardle.example.com: %v\n%s", err, out)
	}
	out, err = s.Aggregator.Kubectl(t, admin, "", "get", "flunders", "-n", "default")
	if err != nil || !strings.Contains(out, "hello") || !strings.Contains(out, "admin") {
		t.Fatalf("kubectl get flunders: %v\n%s, want the flunder hello requested by admin", err, out)
	}
	if r, ok := lastRequest(ext, flundersPath); !ok || r.User != "admin" || !slices.Contains(r.Groups, "system:masters") {
		t.Errorf("the extension saw %+v, want admin in system:masters in the front-proxy headers", r)
	}

	out, err = s.Aggregator.Kubectl(t, bob, "", "get", "flunders", "-n", "default")
	if err == nil || !strings.Contains(out, "Forbidden") && !strings.Contains(out, "forbidden") {
		t.Errorf("kubectl get flunders as bob: %v\n%s, want Forbidden", err, out)
	}
	for _, r := range ext.Requests() {
		if r.User == "bob" && strings.Contains(r.Path, "/flunders") {
			t.Errorf("a request the aggregator forbade reached the extension: %+v", r)
		}
	}

	// A client's own front-proxy headers never reach the backend.
	if code := getAs(t, s, flundersPath, map[string]string{"X-Remote-User": "mallory", "X-Remote-Group": "system:masters"}); code != http.StatusOK {
		t.Fatalf("GET %s with forged X-Remote-* headers: %d", flundersPath, code)
	}
	if r, _ := lastRequest(ext, flundersPath); r.User != "admin" || slices.Contains(r.Groups, "mallory") {
		t.Errorf("with forged headers the extension saw %+v, want admin", r)
	}

	ext.Close()
	polltest.Until(t, 30*time.Second, "the APIService to turn unavailable", func() bool {
		return availableStatus(t, s, admin) == "False"
	})
	if code := getAs(t, s, flundersPath, nil); code != http.StatusServiceUnavailable {
		t.Errorf("GET %s with the extension stopped: %d, want 503", flundersPath, code)
	}

	// Deleting the APIService gives the group back to the registry, which
	// does not serve it.
	if out, err := s.Aggregator.Kubectl(t, admin, "", "delete", "apiservice", wardleAPIService); err != nil {
		t.Fatalf("kubectl delete apiservice: %v\n%s", err, out)
	}
	polltest.Until(t, 30*time.Second, "the group to be gone", func() bool {
		return getAs(t, s, flundersPath, nil) == http.StatusNotFound
	})
}

// startExtension starts extapi with the trust the aggregator published,
// and a serving certificate of a CA of the test's own, which it returns
// for the caBundle.
func startExtension(t *testing.T, s *framework.Stack) (*extapi.Server, []byte) {
	t.Helper()
	admin := s.Client(t, s.AdminToken)
	var data map[string]string
	polltest.Until(t, 30*time.Second, "extension-apiserver-authentication to be published", func() bool {
		cm, err := admin.CoreV1().ConfigMaps("kube-system").Get(ctx(t), "extension-apiserver-authentication", metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		if err == nil {
			data = cm.Data
		}
		return err == nil
	})
	ca := framework.NewCertAuthority(t, "wardle-serving-ca")
	cert, key := ca.Serving(t)
	ext, err := extapi.Start(extapi.Config{Authentication: data, CertFile: cert, KeyFile: key})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ext.Close)
	caPEM, err := os.ReadFile(ca.File(t))
	if err != nil {
		t.Fatal(err)
	}
	return ext, caPEM
}

// apiServiceYAML registers the extension at url, whose certificate caPEM
// signed.
func apiServiceYAML(url string, caPEM []byte) string {
	return fmt.Sprintf(`apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: %s
  annotations:
    kubesplit.io/url: %s
spec:
  group: wardle.example.com
  version: v1alpha1
  service: {namespace: wardle, name: api}
  caBundle: %s
  groupPriorityMinimum: 1000
  versionPriority: 15
`, wardleAPIService, url, base64.StdEncoding.EncodeToString(caPEM))
}

func apply(t *testing.T, s *framework.Stack, kubeconfig, manifest string) {
	t.Helper()
	if out, err := s.Aggregator.Kubectl(t, kubeconfig, manifest, "apply", "-f", "-"); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
}

// availableStatus is the APIService's Available condition status, as
// kubectl reads it.
func availableStatus(t *testing.T, s *framework.Stack, kubeconfig string) string {
	t.Helper()
	out, err := s.Aggregator.Kubectl(t, kubeconfig, "", "get", "apiservice", wardleAPIService,
		"-o", `jsonpath={.status.conditions[?(@.type=="Available")].status}`)
	if err != nil {
		t.Fatalf("kubectl get apiservice: %v\n%s", err, out)
	}
	return strings.TrimSpace(out)
}

// lastRequest is the last request the extension served for path.
func lastRequest(ext *extapi.Server, path string) (extapi.Request, bool) {
	reqs := ext.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if reqs[i].Path == path {
			return reqs[i], true
		}
	}
	return extapi.Request{}, false
}

// getAs GETs path through the aggregator as the admin, with headers.
func getAs(t *testing.T, s *framework.Stack, path string, headers map[string]string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx(t), http.MethodGet, s.Aggregator.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+s.AdminToken)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := s.HTTPClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
