package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestKubectlVersions runs the everyday commands with every kubectl
// release installed beside the current one, each in its own namespace of
// one shared registry: users upgrade servers before clients.
func TestKubectlVersions(t *testing.T) {
	t.Parallel()
	kubectls, err := framework.VersionedKubectls()
	if err != nil {
		t.Fatal(err)
	}
	if len(kubectls) == 0 {
		t.Skip("no versioned kubectl (kubectl.1.27 …) is installed beside the kubectl on the PATH")
	}
	r := framework.StartRegistry(t)
	openAPI := servesOpenAPI(t, r)
	for _, version := range framework.SortedVersions(kubectls) {
		bin := kubectls[version]
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			ns := "kubectl-" + strings.ReplaceAll(version, ".", "-")
			run := func(stdin string, args ...string) string {
				t.Helper()
				out, err := r.KubectlBinary(t, bin, stdin, append(args, "-n", ns)...)
				if err != nil {
					t.Fatalf("kubectl %s %s: %v\n%s", version, strings.Join(args, " "), err, out)
				}
				return out
			}
			r.MustKubectl(t, "", "create", "namespace", ns)

			if out := run(configMapYAML, "create", "--validate=false", "-f", "-"); strings.TrimSpace(out) != "configmap/settings created" {
				t.Errorf("create printed %q", out)
			}
			out := run("", "get", "configmaps")
			if ls := lines(out); len(ls) != 2 || !framework.LineStartsWith(ls[0], "NAME", "DATA", "AGE") || !framework.LineStartsWith(ls[1], "settings", "1") {
				t.Errorf("get configmaps printed:\n%s", out)
			}
			if out := run("", "get", "configmap", "settings", "-o", "jsonpath={.data.color}"); out != "blue" {
				t.Errorf("get -o jsonpath printed %q", out)
			}

			if out := run(deploymentYAML, "apply", "--validate=false", "-f", "-"); strings.TrimSpace(out) != "deployment.apps/web created" {
				t.Errorf("first apply printed %q", out)
			}
			if out := run(deploymentYAML, "apply", "--validate=false", "-f", "-"); strings.TrimSpace(out) != "deployment.apps/web unchanged" {
				t.Errorf("second apply printed %q", out)
			}
			if openAPI {
				// Default validation reads the OpenAPI documents, v2 or v3
				// depending on the release.
				edited := strings.Replace(deploymentYAML, "replicas: 2", "replicas: 3", 1)
				if out := run(edited, "apply", "-f", "-"); strings.TrimSpace(out) != "deployment.apps/web configured" {
					t.Errorf("validated apply printed %q", out)
				}
			}

			if out := run("", "delete", "configmap", "settings"); strings.TrimSpace(out) != `configmap "settings" deleted` {
				t.Errorf("delete printed %q", out)
			}
			run("", "delete", "deployment", "web")
			if left := r.Etcd.Snapshot(t, configMapsPrefix+ns+"/settings"); len(left) != 0 {
				t.Errorf("deleted ConfigMap still in etcd: %v", left)
			}
		})
	}
	if !openAPI {
		t.Log("the registry serves no OpenAPI yet: only --validate=false was exercised with the older kubectls")
	}
}

// servesOpenAPI reports whether the registry answers for /openapi/v3.
func servesOpenAPI(t testing.TB, r *framework.Registry) bool {
	t.Helper()
	resp, err := http.Get(r.URL + "/openapi/v3")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode != http.StatusNotFound
}
