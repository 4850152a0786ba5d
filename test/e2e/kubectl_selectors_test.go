package e2e

import (
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestKubectlLabelSelectors labels objects with kubectl label and selects
// them with equality- and set-based selectors.
func TestKubectlLabelSelectors(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	for _, name := range []string{"a", "b", "c", "d"} {
		r.MustKubectl(t, "", "create", "configmap", name, "--from-literal=k=v")
	}
	if out := r.MustKubectl(t, "", "label", "configmap", "a", "app=web", "tier=frontend"); strings.TrimSpace(out) != "configmap/a labeled" {
		t.Errorf("kubectl label printed %q", out)
	}
	r.MustKubectl(t, "", "label", "configmap", "b", "app=db", "tier=backend")
	r.MustKubectl(t, "", "label", "configmap", "c", "app=web")
	// Changing a label needs --overwrite, as on kube.
	if out, err := r.Kubectl(t, "", "label", "configmap", "c", "app=cache"); err == nil || !strings.Contains(out, "already has a value") {
		t.Errorf("relabel without --overwrite: err=%v %q", err, out)
	}
	r.MustKubectl(t, "", "label", "configmap", "c", "app=cache", "--overwrite")
	r.MustKubectl(t, "", "label", "configmap", "d", "app=web", "tier=backend")
	r.MustKubectl(t, "", "label", "configmap", "d", "tier-") // removes the label

	cases := []struct {
		selector string
		want     string
	}{
		{"app=web", "a d"},
		{"app==web", "a d"},
		{"app!=web", "b c"}, // no app label also counts as != web
		{"app=web,tier=frontend", "a"},
		{"app in (web,db)", "a b d"},
		{"app notin (web,db)", "c"},
		{"tier", "a b"},
		{"!tier", "c d"},
		{"app in (web,cache),!tier", "c d"},
		{"app=nothing", ""},
	}
	for _, c := range cases {
		out := r.MustKubectl(t, "", "get", "configmaps", "-l", c.selector, "-o", "name")
		var want []string
		for _, n := range strings.Fields(c.want) {
			want = append(want, "configmap/"+n)
		}
		if got := names(out); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("-l %q = %v, want %v", c.selector, got, want)
		}
	}
	// The label appears in the stored object and in --show-labels.
	out := r.MustKubectl(t, "", "get", "configmap", "a", "--show-labels", "--no-headers")
	if !strings.Contains(out, "app=web,tier=frontend") {
		t.Errorf("--show-labels: %q", out)
	}
	if out, err := r.Kubectl(t, "", "get", "configmaps", "-l", "app in (web"); err == nil {
		t.Errorf("a malformed selector was accepted: %s", out)
	}
}

// TestKubectlFieldSelectors selects by the fields each kind allows, and
// gets a clear error for a field it does not.
func TestKubectlFieldSelectors(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	r.MustKubectl(t, "", "create", "namespace", "other")
	for _, name := range []string{"a", "b"} {
		r.MustKubectl(t, "", "create", "configmap", name, "--from-literal=k=v")
	}
	r.MustKubectl(t, "", "create", "configmap", "a", "-n", "other", "--from-literal=k=v")
	r.MustKubectl(t, "", "create", "secret", "generic", "plain", "--from-literal=k=v")
	r.MustKubectl(t, "", "create", "secret", "docker-registry", "pull", "--docker-server=r.example", "--docker-username=u", "--docker-password=p")

	cases := []struct {
		args []string
		want string
	}{
		{[]string{"get", "cm", "--field-selector", "metadata.name=a"}, "configmap/a"},
		{[]string{"get", "cm", "--field-selector", "metadata.name!=a"}, "configmap/b"},
		{[]string{"get", "cm", "-A", "--field-selector", "metadata.name=a"}, "configmap/a configmap/a"},
		{[]string{"get", "cm", "-A", "--field-selector", "metadata.namespace=other"}, "configmap/a"},
		{[]string{"get", "cm", "--field-selector", "metadata.name=a,metadata.name!=a"}, ""},
		{[]string{"get", "secrets", "--field-selector", "type=kubernetes.io/dockerconfigjson"}, "secret/pull"},
		{[]string{"get", "secrets", "--field-selector", "type!=kubernetes.io/dockerconfigjson"}, "secret/plain"},
		{[]string{"get", "ns", "--field-selector", "status.phase=Active,metadata.name=other"}, "namespace/other"},
	}
	for _, c := range cases {
		out := r.MustKubectl(t, "", append(c.args, "-o", "name")...)
		if got := strings.Join(names(out), " "); got != c.want {
			t.Errorf("kubectl %s = %q, want %q", strings.Join(c.args, " "), got, c.want)
		}
	}
	// kube answers 400 for a field the kind does not index.
	out, err := r.Kubectl(t, "", "get", "cm", "--field-selector", "data.k=v")
	if err == nil || !strings.Contains(out, "BadRequest") || !strings.Contains(out, "data.k") {
		t.Errorf("unsupported field selector: err=%v %q", err, out)
	}
}
