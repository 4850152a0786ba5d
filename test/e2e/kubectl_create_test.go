package e2e

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// Manifests the kubectl tests create, one of each kind kubectl users meet
// first.
const (
	configMapYAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels: {app: web}
data:
  color: blue
`
	deploymentYAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
`
	serviceYAML = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 8080
`
	secretYAML = `apiVersion: v1
kind: Secret
metadata:
  name: creds
type: Opaque
stringData:
  password: s3cret
`
)

// TestKubectlCreateFromStdin creates each kind from YAML on stdin, as
// `kubectl create -f -` users do, and checks what landed in etcd.
func TestKubectlCreateFromStdin(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	cases := []struct {
		yaml, printed, key string
		check              func(t *testing.T, stored map[string]any)
	}{
		{configMapYAML, "configmap/settings created", configMapsPrefix + "default/settings", func(t *testing.T, m map[string]any) {
			if got := dig(m, "data", "color"); got != "blue" {
				t.Errorf("data.color = %v, want blue", got)
			}
		}},
		{deploymentYAML, "deployment.apps/web created", deploymentsPrefix + "default/web", func(t *testing.T, m map[string]any) {
			if got := dig(m, "spec", "replicas"); got != float64(2) {
				t.Errorf("spec.replicas = %v, want 2", got)
			}
			// Defaults are stored, as kube-apiserver stores them.
			if got := dig(m, "spec", "strategy", "type"); got != "RollingUpdate" {
				t.Errorf("spec.strategy.type = %v, want the default RollingUpdate", got)
			}
			if got := dig(m, "metadata", "generation"); got != float64(1) {
				t.Errorf("metadata.generation = %v, want 1", got)
			}
		}},
		{serviceYAML, "service/web created", servicesPrefix + "default/web", func(t *testing.T, m map[string]any) {
			if got := dig(m, "spec", "type"); got != "ClusterIP" {
				t.Errorf("spec.type = %v, want the default ClusterIP", got)
			}
		}},
		{secretYAML, "secret/creds created", secretsPrefix + "default/creds", func(t *testing.T, m map[string]any) {
			// stringData is write-only: it is merged into data, base64.
			if _, ok := m["stringData"]; ok {
				t.Errorf("stringData was stored: %v", m["stringData"])
			}
			want := base64.StdEncoding.EncodeToString([]byte("s3cret"))
			if got := dig(m, "data", "password"); got != want {
				t.Errorf("data.password = %v, want %s", got, want)
			}
		}},
	}
	for _, c := range cases {
		out := r.MustKubectl(t, c.yaml, "create", "--validate=false", "-f", "-")
		if strings.TrimSpace(out) != c.printed {
			t.Errorf("kubectl create printed %q, want %q", out, c.printed)
		}
		stored, ok := etcdValue(t, r, c.key)
		if !ok {
			t.Errorf("%s is not in etcd after %s", c.key, c.printed)
			continue
		}
		if dig(stored, "metadata", "uid") == nil || dig(stored, "metadata", "creationTimestamp") == nil {
			t.Errorf("%s lacks uid or creationTimestamp: %v", c.key, stored["metadata"])
		}
		if dig(stored, "metadata", "namespace") != "default" {
			t.Errorf("%s: metadata.namespace = %v, want default", c.key, dig(stored, "metadata", "namespace"))
		}
		c.check(t, stored)
	}
	// Creating the same manifest again is refused.
	out, err := r.Kubectl(t, configMapYAML, "create", "--validate=false", "-f", "-")
	if err == nil || !strings.Contains(out, `configmaps "settings" already exists`) {
		t.Errorf("second create: err=%v, output %q; want AlreadyExists", err, out)
	}
}

// TestKubectlCreateValidated creates with kubectl's default client-side
// validation, which downloads the OpenAPI schema first.
func TestKubectlCreateValidated(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	requireOpenAPI(t, r)
	out := r.MustKubectl(t, configMapYAML+"---\n"+deploymentYAML, "create", "-f", "-")
	for _, want := range []string{"configmap/settings created", "deployment.apps/web created"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl create printed %q, want %q", out, want)
		}
	}
}

// dig reads a nested field of a decoded JSON object, nil when absent.
func dig(m map[string]any, path ...string) any {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}

// kubectlJSON runs kubectl with -o json and decodes its output.
func kubectlJSON(t testing.TB, r *framework.Registry, args ...string) map[string]any {
	t.Helper()
	out := r.MustKubectl(t, "", append(args, "-o", "json")...)
	m := map[string]any{}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("kubectl %v -o json: %v\n%s", args, err, out)
	}
	return m
}
