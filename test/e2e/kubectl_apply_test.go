package e2e

import (
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestKubectlApplyTwice applies the same manifests twice: created, then
// unchanged (kubectl compares the last-applied annotation and the server
// must not have rewritten the object), then configured after an edit.
func TestKubectlApplyTwice(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	applyTwice(t, r, "--validate=false")
}

// TestKubectlApplyValidated is the same with kubectl's default validation,
// which needs the server's OpenAPI documents.
func TestKubectlApplyValidated(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	requireOpenAPI(t, r)
	applyTwice(t, r)
}

func applyTwice(t *testing.T, r *framework.Registry, flags ...string) {
	t.Helper()
	manifests := configMapYAML + "---\n" + deploymentYAML + "---\n" + serviceYAML
	args := append([]string{"apply", "-f", "-"}, flags...)
	out := r.MustKubectl(t, manifests, args...)
	for _, want := range []string{"configmap/settings created", "deployment.apps/web created", "service/web created"} {
		if !strings.Contains(out, want) {
			t.Errorf("first apply printed %q, want %q", out, want)
		}
	}
	before := snapshot(t, r, configMapsPrefix, deploymentsPrefix, servicesPrefix)
	out = r.MustKubectl(t, manifests, args...)
	for _, want := range []string{"configmap/settings unchanged", "deployment.apps/web unchanged", "service/web unchanged"} {
		if !strings.Contains(out, want) {
			t.Errorf("second apply printed %q, want %q", out, want)
		}
	}
	assertSameSnapshot(t, before, snapshot(t, r, configMapsPrefix, deploymentsPrefix, servicesPrefix))

	edited := strings.Replace(configMapYAML, "color: blue", "color: green", 1)
	if out := r.MustKubectl(t, edited, args...); strings.TrimSpace(out) != "configmap/settings configured" {
		t.Errorf("apply of an edit printed %q", out)
	}
	if got := r.MustKubectl(t, "", "get", "cm", "settings", "-o", "jsonpath={.data.color}"); got != "green" {
		t.Errorf("data.color = %q after apply, want green", got)
	}
	// A field dropped from the manifest is removed (three-way merge with the
	// last-applied annotation).
	dropped := strings.Replace(deploymentYAML, "  replicas: 2\n", "", 1)
	dropped = strings.Replace(dropped, "  labels: {app: web}\n", "", 1)
	r.MustKubectl(t, dropped, args...)
	dep := kubectlJSON(t, r, "get", "deploy", "web")
	if dig(dep, "metadata", "labels") != nil {
		t.Errorf("labels dropped from the manifest are still set: %v", dig(dep, "metadata", "labels"))
	}
	if dig(dep, "spec", "replicas") != float64(1) {
		t.Errorf("spec.replicas = %v after dropping it, want the default 1", dig(dep, "spec", "replicas"))
	}
}

// TestKubectlServerSideApply applies server-side, twice, then from a
// second field manager: a conflict on a field the first owns, which
// --force-conflicts takes over.
func TestKubectlServerSideApply(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	ssa := []string{"apply", "--server-side", "--validate=false", "-f", "-"}
	if out := r.MustKubectl(t, configMapYAML, ssa...); strings.TrimSpace(out) != "configmap/settings serverside-applied" {
		t.Errorf("server-side apply printed %q", out)
	}
	before := snapshot(t, r, configMapsPrefix)
	r.MustKubectl(t, configMapYAML, ssa...)
	assertSameSnapshot(t, before, snapshot(t, r, configMapsPrefix))

	cm := kubectlJSON(t, r, "get", "cm", "settings", "--show-managed-fields")
	if !managedBy(cm, "kubectl", "Apply") {
		t.Errorf("managedFields have no Apply entry for kubectl: %v", dig(cm, "metadata", "managedFields"))
	}

	other := strings.Replace(configMapYAML, "color: blue", "color: red", 1)
	out, err := r.Kubectl(t, other, append(ssa, "--field-manager=other")...)
	if err == nil || !strings.Contains(out, "conflict") || !strings.Contains(out, `"kubectl"`) || !strings.Contains(out, ".data.color") {
		t.Fatalf("apply by a second manager: err=%v, want a conflict with kubectl on .data.color:\n%s", err, out)
	}
	if got := r.MustKubectl(t, "", "get", "cm", "settings", "-o", "jsonpath={.data.color}"); got != "blue" {
		t.Errorf("a conflicting apply changed data.color to %q", got)
	}
	r.MustKubectl(t, other, append(ssa, "--field-manager=other", "--force-conflicts")...)
	if got := r.MustKubectl(t, "", "get", "cm", "settings", "-o", "jsonpath={.data.color}"); got != "red" {
		t.Errorf("data.color = %q after --force-conflicts, want red", got)
	}
	cm = kubectlJSON(t, r, "get", "cm", "settings", "--show-managed-fields")
	if !managedBy(cm, "other", "Apply") {
		t.Errorf("the forcing manager does not own a field: %v", dig(cm, "metadata", "managedFields"))
	}
	// The first manager now conflicts in turn.
	if out, err := r.Kubectl(t, configMapYAML, ssa...); err == nil || !strings.Contains(out, `conflict with "other"`) {
		t.Errorf("apply by the dispossessed manager: err=%v\n%s", err, out)
	}
	// Sharing a value is no conflict.
	shared := strings.Replace(configMapYAML, "color: blue", "color: red", 1)
	r.MustKubectl(t, shared, ssa...)
}

// managedBy reports whether an object's managedFields hold an entry of
// manager with operation.
func managedBy(obj map[string]any, manager, operation string) bool {
	entries, _ := dig(obj, "metadata", "managedFields").([]any)
	for _, e := range entries {
		m, _ := e.(map[string]any)
		if m["manager"] == manager && m["operation"] == operation {
			return true
		}
	}
	return false
}

// TestKubectlDryRunServer runs every kind of write with --dry-run=server:
// kubectl prints what would have happened and etcd does not change.
func TestKubectlDryRunServer(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	r.MustKubectl(t, configMapYAML, "create", "--validate=false", "-f", "-")
	prefixes := []string{configMapsPrefix, deploymentsPrefix, namespacesPrefix}
	before := snapshot(t, r, prefixes...)
	runs := []struct {
		stdin string
		args  []string
		want  string
	}{
		{deploymentYAML, []string{"create", "--validate=false", "-f", "-"}, "deployment.apps/web created (server dry run)"},
		{deploymentYAML, []string{"apply", "--validate=false", "-f", "-"}, "deployment.apps/web created (server dry run)"},
		{strings.Replace(configMapYAML, "blue", "red", 1), []string{"apply", "--validate=false", "-f", "-"}, "configmap/settings configured (server dry run)"},
		{configMapYAML, []string{"apply", "--server-side", "--validate=false", "-f", "-"}, "configmap/settings serverside-applied (server dry run)"},
		{"", []string{"create", "namespace", "dry"}, "namespace/dry created (server dry run)"},
		{"", []string{"label", "cm", "settings", "x=y"}, "configmap/settings labeled (server dry run)"},
		{"", []string{"patch", "cm", "settings", "-p", `{"data":{"color":"red"}}`}, "configmap/settings patched"}, // kubectl patch adds no suffix
		{"", []string{"delete", "cm", "settings"}, `configmap "settings" deleted (server dry run)`},
		{"", []string{"delete", "ns", "default"}, `namespace "default" deleted (server dry run)`},
	}
	for _, run := range runs {
		args := append(run.args, "--dry-run=server")
		out := lines(r.MustKubectl(t, run.stdin, args...))
		// Only the last line: applying to an object created without
		// --save-config first warns about the missing annotation.
		if out[len(out)-1] != run.want {
			t.Errorf("kubectl %s printed %q, want %q", strings.Join(args, " "), out, run.want)
		}
	}
	assertSameSnapshot(t, before, snapshot(t, r, prefixes...))
	// Dry runs are still validated: an invalid object is refused.
	if out, err := r.Kubectl(t, "", "create", "configmap", "Bad_Name", "--dry-run=server"); err == nil || !strings.Contains(out, "Invalid") {
		t.Errorf("dry run of an invalid name: err=%v %q", err, out)
	}
	// And the dry-run answer is the object as it would be stored.
	out := r.MustKubectl(t, deploymentYAML, "create", "-f", "-", "--dry-run=server", "--validate=false", "-o", "jsonpath={.spec.strategy.type}")
	if out != "RollingUpdate" {
		t.Errorf("dry-run create answered strategy %q, want the defaulted RollingUpdate", out)
	}
}

// TestKubectlStrictValidation sends an unknown field with
// --validate=strict: the server refuses it and names the field.
func TestKubectlStrictValidation(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	requireOpenAPI(t, r)
	bad := strings.Replace(configMapYAML, "\ndata:\n", "\ncolour: blue\ndata:\n", 1)
	out, err := r.Kubectl(t, bad, "create", "--validate=strict", "-f", "-")
	if err == nil || !strings.Contains(out, `unknown field "colour"`) {
		t.Errorf("strict create of an unknown field: err=%v, want an error naming it:\n%s", err, out)
	}
	nested := strings.Replace(deploymentYAML, "        image: nginx:1.25\n", "        image: nginx:1.25\n        imagePolicy: Always\n", 1)
	out, err = r.Kubectl(t, nested, "apply", "--validate=strict", "-f", "-")
	if err == nil || !strings.Contains(out, `unknown field "spec.template.spec.containers[0].imagePolicy"`) {
		t.Errorf("strict apply of a nested unknown field: err=%v, want an error naming its path:\n%s", err, out)
	}
	if _, ok := etcdValue(t, r, configMapsPrefix+"default/settings"); ok {
		t.Error("the refused ConfigMap was stored")
	}
	// --validate=warn stores the object and warns.
	out = r.MustKubectl(t, bad, "create", "--validate=warn", "-f", "-")
	if !strings.Contains(out, `unknown field "colour"`) || !strings.Contains(out, "configmap/settings created") {
		t.Errorf("--validate=warn printed %q, want a warning naming the field and the object created", out)
	}
}
