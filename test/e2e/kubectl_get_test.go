package e2e

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestKubectlGetOutputs checks every output format of kubectl get: the
// object as YAML and JSON, and the server-side table in its normal and
// wide forms with the columns kube-apiserver prints.
func TestKubectlGetOutputs(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	r.MustKubectl(t, configMapYAML+"---\n"+deploymentYAML+"---\n"+serviceYAML+"---\n"+secretYAML,
		"create", "--validate=false", "-f", "-")

	t.Run("yaml", func(t *testing.T) {
		out := r.MustKubectl(t, "", "get", "configmap", "settings", "-o", "yaml")
		m := map[string]any{}
		if err := yaml.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("-o yaml is not YAML: %v\n%s", err, out)
		}
		if m["kind"] != "ConfigMap" || m["apiVersion"] != "v1" || dig(m, "metadata", "name") != "settings" || dig(m, "data", "color") != "blue" {
			t.Errorf("-o yaml:\n%s", out)
		}
		if dig(m, "metadata", "resourceVersion") == nil {
			t.Errorf("-o yaml has no resourceVersion:\n%s", out)
		}
	})
	t.Run("json", func(t *testing.T) {
		m := kubectlJSON(t, r, "get", "deployment", "web")
		if m["kind"] != "Deployment" || m["apiVersion"] != "apps/v1" || dig(m, "spec", "replicas") != float64(2) {
			t.Errorf("-o json: %v", m)
		}
		list := kubectlJSON(t, r, "get", "configmaps")
		if list["kind"] != "List" || len(list["items"].([]any)) != 1 {
			t.Errorf("-o json of a list: %v", list)
		}
	})
	t.Run("name", func(t *testing.T) {
		out := r.MustKubectl(t, "", "get", "configmaps,deployments,services,secrets", "-o", "name")
		want := []string{"configmap/settings", "deployment.apps/web", "secret/creds", "service/web"}
		if got := names(out); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("-o name = %v, want %v", got, want)
		}
	})
	t.Run("tables", func(t *testing.T) {
		cases := []struct {
			args   []string
			header []string
			row    []string
		}{
			{[]string{"get", "configmaps"}, []string{"NAME", "DATA", "AGE"}, []string{"settings", "1"}},
			{[]string{"get", "cm", "-o", "wide"}, []string{"NAME", "DATA", "AGE"}, []string{"settings", "1"}},
			{[]string{"get", "deployments"}, []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"}, []string{"web", "0/2", "0", "0"}},
			{[]string{"get", "deploy", "-o", "wide"}, []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"},
				nil},
			{[]string{"get", "services"}, []string{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"}, []string{"web", "ClusterIP"}},
			{[]string{"get", "svc", "-o", "wide"}, []string{"NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"}, nil},
			{[]string{"get", "secrets"}, []string{"NAME", "TYPE", "DATA", "AGE"}, []string{"creds", "Opaque", "1"}},
			{[]string{"get", "namespaces"}, []string{"NAME", "STATUS", "AGE"}, []string{"default", "Active"}},
		}
		for _, c := range cases {
			out := r.MustKubectl(t, "", c.args...)
			ls := lines(out)
			if len(ls) < 2 || strings.Join(strings.Fields(ls[0]), " ") != strings.Join(c.header, " ") {
				t.Errorf("kubectl %s: header is not %v:\n%s", strings.Join(c.args, " "), c.header, out)
				continue
			}
			if c.row != nil && !framework.LineStartsWith(ls[1], c.row...) {
				t.Errorf("kubectl %s: first row does not start with %v:\n%s", strings.Join(c.args, " "), c.row, out)
			}
		}
		// The wide deployment row names its containers, images and selector.
		out := r.MustKubectl(t, "", "get", "deploy", "web", "-o", "wide", "--no-headers")
		if f := strings.Fields(out); len(f) != 8 || f[5] != "nginx" || f[6] != "nginx:1.25" || f[7] != "app=web" {
			t.Errorf("wide deployment row = %q", out)
		}
	})
	t.Run("jsonpath and custom columns", func(t *testing.T) {
		out := r.MustKubectl(t, "", "get", "cm", "settings", "-o", "jsonpath={.data.color}")
		if out != "blue" {
			t.Errorf("jsonpath = %q, want blue", out)
		}
		out = r.MustKubectl(t, "", "get", "deploy", "-o", "custom-columns=NAME:.metadata.name,REPLICAS:.spec.replicas", "--no-headers")
		if f := strings.Fields(out); len(f) != 2 || f[0] != "web" || f[1] != "2" {
			t.Errorf("custom-columns = %q", out)
		}
	})
	t.Run("not found", func(t *testing.T) {
		out, err := r.Kubectl(t, "", "get", "configmap", "nope")
		if err == nil || !strings.Contains(out, `Error from server (NotFound): configmaps "nope" not found`) {
			t.Errorf("get of a missing object: err=%v\n%s", err, out)
		}
	})
}
