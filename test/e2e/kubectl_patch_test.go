package e2e

import (
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestKubectlPatch patches with each of kubectl's three patch types and
// checks the results differ as kube's do: strategic merge merges lists by
// their key, merge patch replaces lists, JSON patch applies operations.
func TestKubectlPatch(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	r.MustKubectl(t, deploymentYAML, "create", "--validate=false", "-f", "-")
	containers := func() string {
		return r.MustKubectl(t, "", "get", "deploy", "web", "-o", "jsonpath={.spec.template.spec.containers[*].name}")
	}

	t.Run("strategic", func(t *testing.T) {
		out := r.MustKubectl(t, "", "patch", "deploy", "web", "--type=strategic",
			"-p", `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:1.36"}]}}}}`)
		if strings.TrimSpace(out) != "deployment.apps/web patched" {
			t.Errorf("patch printed %q", out)
		}
		// Containers merge by name: the sidecar joins nginx.
		if got := containers(); got != "sidecar nginx" && got != "nginx sidecar" {
			t.Errorf("containers after a strategic patch = %q, want nginx and sidecar", got)
		}
		// A patch naming an existing container changes only what it names.
		r.MustKubectl(t, "", "patch", "deploy", "web", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}}}`)
		if got := r.MustKubectl(t, "", "get", "deploy", "web", "-o", `jsonpath={.spec.template.spec.containers[?(@.name=="nginx")].image}`); got != "nginx:1.27" {
			t.Errorf("nginx image = %q, want nginx:1.27", got)
		}
		// The $patch: delete directive removes one list element.
		r.MustKubectl(t, "", "patch", "deploy", "web", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","$patch":"delete"}]}}}}`)
		if got := containers(); got != "nginx" {
			t.Errorf("containers after $patch: delete = %q, want nginx", got)
		}
		// An unchanged patch is reported as such and writes nothing.
		before := snapshot(t, r, deploymentsPrefix)
		out = r.MustKubectl(t, "", "patch", "deploy", "web", "-p", `{"spec":{"replicas":2}}`)
		if strings.TrimSpace(out) != "deployment.apps/web patched (no change)" {
			t.Errorf("a no-op patch printed %q", out)
		}
		assertSameSnapshot(t, before, snapshot(t, r, deploymentsPrefix))
	})

	t.Run("merge", func(t *testing.T) {
		r.MustKubectl(t, "", "patch", "deploy", "web", "--type=merge",
			"-p", `{"metadata":{"labels":{"app":null,"team":"blue"}},"spec":{"replicas":5,"template":{"spec":{"containers":[{"name":"only","image":"busybox:1.36"}]}}}}`)
		dep := kubectlJSON(t, r, "get", "deploy", "web")
		if got := containers(); got != "only" {
			t.Errorf("containers after a merge patch = %q, want the list replaced by [only]", got)
		}
		if labels, _ := dig(dep, "metadata", "labels").(map[string]any); labels["app"] != nil || labels["team"] != "blue" {
			t.Errorf("labels after a merge patch = %v, want app removed and team=blue", labels)
		}
		if dig(dep, "spec", "replicas") != float64(5) {
			t.Errorf("replicas = %v, want 5", dig(dep, "spec", "replicas"))
		}
	})

	t.Run("json", func(t *testing.T) {
		r.MustKubectl(t, "", "patch", "deploy", "web", "--type=json", "-p", `[
			{"op":"test","path":"/spec/replicas","value":5},
			{"op":"replace","path":"/spec/replicas","value":3},
			{"op":"add","path":"/metadata/annotations","value":{"note":"hi"}},
			{"op":"add","path":"/spec/template/spec/containers/-","value":{"name":"second","image":"nginx:1.27"}},
			{"op":"remove","path":"/metadata/labels/team"}
		]`)
		dep := kubectlJSON(t, r, "get", "deploy", "web")
		if dig(dep, "spec", "replicas") != float64(3) || dig(dep, "metadata", "annotations", "note") != "hi" || dig(dep, "metadata", "labels", "team") != nil {
			t.Errorf("after the JSON patch: replicas=%v annotations=%v labels=%v", dig(dep, "spec", "replicas"),
				dig(dep, "metadata", "annotations"), dig(dep, "metadata", "labels"))
		}
		if got := containers(); got != "only second" {
			t.Errorf("containers after the JSON patch = %q, want only second", got)
		}
		// A failing test operation refuses the whole patch.
		before := snapshot(t, r, deploymentsPrefix)
		out, err := r.Kubectl(t, "", "patch", "deploy", "web", "--type=json",
			"-p", `[{"op":"replace","path":"/spec/replicas","value":9},{"op":"test","path":"/spec/replicas","value":4}]`)
		if err == nil {
			t.Errorf("a JSON patch whose test fails was applied: %s", out)
		}
		assertSameSnapshot(t, before, snapshot(t, r, deploymentsPrefix))
	})

	t.Run("generation", func(t *testing.T) {
		// Every patch above changed the spec, so generation counted them.
		dep := kubectlJSON(t, r, "get", "deploy", "web")
		if g, _ := dig(dep, "metadata", "generation").(float64); g < 5 {
			t.Errorf("generation = %v after five spec changes", g)
		}
	})
}

// TestKubectlReplaceStale replaces with a manifest read before someone
// else's write: kube refuses it with a Conflict that says so.
func TestKubectlReplaceStale(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	r.MustKubectl(t, configMapYAML, "create", "--validate=false", "-f", "-")
	stale := r.MustKubectl(t, "", "get", "cm", "settings", "-o", "yaml")
	r.MustKubectl(t, "", "patch", "cm", "settings", "-p", `{"data":{"color":"green"}}`)

	before := snapshot(t, r, configMapsPrefix)
	edited := strings.Replace(stale, "color: blue", "color: red", 1)
	out, err := r.Kubectl(t, edited, "replace", "--validate=false", "-f", "-")
	want := `Error from server (Conflict): error when replacing "STDIN": Operation cannot be fulfilled on configmaps "settings": ` +
		"the object has been modified; please apply your changes to the latest version and try again"
	if err == nil || !strings.Contains(out, want) {
		t.Errorf("replace with a stale resourceVersion: err=%v\n%s\nwant %q", err, out, want)
	}
	assertSameSnapshot(t, before, snapshot(t, r, configMapsPrefix))

	// Without a resourceVersion the replace is unconditional.
	out = r.MustKubectl(t, strings.Replace(configMapYAML, "blue", "red", 1), "replace", "--validate=false", "-f", "-")
	if strings.TrimSpace(out) != "configmap/settings replaced" {
		t.Errorf("replace printed %q", out)
	}
	if got := r.MustKubectl(t, "", "get", "cm", "settings", "-o", "jsonpath={.data.color}"); got != "red" {
		t.Errorf("data.color = %q after replace, want red", got)
	}
	// Replacing something that does not exist is NotFound.
	if out, err := r.Kubectl(t, strings.Replace(configMapYAML, "name: settings", "name: ghost", 1), "replace", "--validate=false", "-f", "-"); err == nil ||
		!strings.Contains(out, `configmaps "ghost" not found`) {
		t.Errorf("replace of a missing object: err=%v %q", err, out)
	}
}
