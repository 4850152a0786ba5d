package openapi

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/common"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// kubectlEnv runs kubectl against a test server: the kubectl on PATH, or
// the binary $KUBECTL names (to try older releases, such as kubectl.1.27).
type kubectlEnv struct {
	t          *testing.T
	bin        string
	kubeconfig string
	home       string
}

func newKubectl(t *testing.T, srv *httptest.Server) *kubectlEnv {
	t.Helper()
	bin, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH")
	}
	if b := os.Getenv("KUBECTL"); b != "" {
		bin = b
	}
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: %s
contexts:
- name: fake
  context:
    cluster: fake
    user: fake
    namespace: default
current-context: fake
users:
- name: fake
  user:
    token: fake
`, srv.URL)
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return &kubectlEnv{t: t, bin: bin, kubeconfig: kubeconfig, home: dir}
}

// run runs kubectl with args, a fresh cache, and the given stdin.
func (k *kubectlEnv) run(stdin string, args ...string) (string, error) {
	args = append([]string{"--kubeconfig", k.kubeconfig, "--cache-dir", filepath.Join(k.home, "cache")}, args...)
	cmd := exec.Command(k.bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+k.home, "KUBECONFIG="+k.kubeconfig)
	cmd.Stdin = bytes.NewBufferString(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// podWithUnknownField is a Pod that client-side schema validation rejects
// (spec.bogusField), so kubectl sends it only if it leaves strict validation
// to the server.
const podWithUnknownField = `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  bogusField: 1
  containers:
  - name: web
    image: nginx
`

func TestKubectlExplain(t *testing.T) {
	cases := []struct {
		name   string
		withV3 bool
		args   []string
		want   []string
	}{
		{"v3", true, []string{"explain", "pods.spec.containers"},
			[]string{"KIND:", "Pod", "List of containers belonging to the pod", "imagePullPolicy"}},
		{"v3 deployment", true, []string{"explain", "deploy.spec.strategy"},
			[]string{"Deployment", "rollingUpdate"}},
		{"v2 output", true, []string{"explain", "pods.spec", "--output=plaintext-openapiv2"},
			[]string{"Pod", "Specification of the desired behavior of the pod", "containers"}},
		{"v2 fallback", false, []string{"explain", "pods.spec.containers"},
			[]string{"Pod", "List of containers belonging to the pod"}},
		{"cluster scoped", true, []string{"explain", "clusterroles.rules"},
			[]string{"ClusterRole", "verbs"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := startFakeAPI(t, resource.Builtins(), tc.withV3)
			out, err := newKubectl(t, srv).run("", tc.args...)
			if err != nil {
				t.Fatalf("kubectl %v: %v\n%s", tc.args, err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("kubectl %v: output lacks %q:\n%s", tc.args, w, out)
				}
			}
		})
	}
}

// TestKubectlStrictValidation checks that kubectl finds fieldValidation on
// the Pod's PATCH operation, in the v3 document or, without one, in v2, and
// so sends an object with an unknown field for the server to judge.
func TestKubectlStrictValidation(t *testing.T) {
	for _, withV3 := range []bool{true, false} {
		t.Run(fmt.Sprintf("v3=%v", withV3), func(t *testing.T) {
			srv, api := startFakeAPI(t, resource.Builtins(), withV3)
			out, err := newKubectl(t, srv).run(podWithUnknownField, "create", "-f", "-", "--validate=strict")
			if err != nil {
				t.Fatalf("kubectl create: %v\n%s", err, out)
			}
			posts := api.requestsTo(http.MethodPost)
			if len(posts) != 1 || posts[0].URL.Query().Get("fieldValidation") != "Strict" {
				t.Fatalf("want one POST with fieldValidation=Strict, got %v", posts)
			}
		})
	}
}

// TestKubectlStrictValidationNeedsParameter is the control for the test
// above: without fieldValidation on PATCH, kubectl validates on its own side
// and refuses the unknown field before sending anything.
func TestKubectlStrictValidationNeedsParameter(t *testing.T) {
	saved := patchParams
	t.Cleanup(func() { patchParams = saved })
	patchParams = []common.Parameter{paramDryRun, paramFieldManager, paramForce}

	srv, api := startFakeAPI(t, resource.Builtins(), true)
	out, err := newKubectl(t, srv).run(podWithUnknownField, "create", "-f", "-", "--validate=strict")
	if err == nil || !strings.Contains(out, "bogusField") {
		t.Fatalf("kubectl create succeeded or failed for another reason: %v\n%s", err, out)
	}
	if posts := api.requestsTo(http.MethodPost); len(posts) != 0 {
		t.Fatalf("kubectl sent %d POSTs", len(posts))
	}
}

// TestKubectlApply creates an object with kubectl apply and changes it with
// a second apply, which kubectl sends as a strategic merge patch because the
// Pod's PATCH operation accepts one.
func TestKubectlApply(t *testing.T) {
	srv, api := startFakeAPI(t, resource.Builtins(), true)
	k := newKubectl(t, srv)
	pod := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: web\n    image: nginx\n"
	if out, err := k.run(pod, "apply", "-f", "-"); err != nil {
		t.Fatalf("first apply: %v\n%s", err, out)
	}
	if out, err := k.run(pod+"  - name: side\n    image: busybox\n", "apply", "-f", "-"); err != nil {
		t.Fatalf("second apply: %v\n%s", err, out)
	}
	if n := len(api.requestsTo(http.MethodPost)); n != 1 {
		t.Errorf("want the first apply to create with one POST, got %d", n)
	}
	patches := api.requestsTo(http.MethodPatch)
	if len(patches) != 1 || patches[0].Header.Get("Content-Type") != "application/strategic-merge-patch+json" {
		t.Fatalf("want one strategic merge PATCH, got %v", patches)
	}
}
