package e2e

import (
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestKubectlAPIResources checks what kubectl api-resources reads from
// discovery: names, short names, groups, scope and kinds.
func TestKubectlAPIResources(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	out := r.MustKubectl(t, "", "api-resources")
	ls := lines(out)
	if len(ls) == 0 || !framework.LineStartsWith(ls[0], "NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND") {
		t.Fatalf("api-resources header:\n%s", out)
	}
	want := [][]string{
		{"configmaps", "cm", "v1", "true", "ConfigMap"},
		{"namespaces", "ns", "v1", "false", "Namespace"},
		{"secrets", "v1", "true", "Secret"},
		{"services", "svc", "v1", "true", "Service"},
		{"deployments", "deploy", "apps/v1", "true", "Deployment"},
		{"leases", "coordination.k8s.io/v1", "true", "Lease"},
	}
	for _, w := range want {
		found := false
		for _, l := range ls {
			found = found || strings.Join(strings.Fields(l), " ") == strings.Join(w, " ")
		}
		if !found {
			t.Errorf("api-resources has no row %v:\n%s", w, out)
		}
	}

	// Filters kubectl applies to discovery.
	if got := names(r.MustKubectl(t, "", "api-resources", "--api-group=apps", "-o", "name")); !contains(got, "deployments.apps") {
		t.Errorf("api-resources --api-group=apps = %v, want deployments.apps", got)
	}
	cluster := names(r.MustKubectl(t, "", "api-resources", "--namespaced=false", "-o", "name"))
	if !contains(cluster, "namespaces") || contains(cluster, "configmaps") {
		t.Errorf("api-resources --namespaced=false = %v", cluster)
	}
	wide := r.MustKubectl(t, "", "api-resources", "-o", "wide")
	for _, l := range lines(wide) {
		if framework.LineStartsWith(l, "configmaps", "cm") && !strings.Contains(l, "create,delete,deletecollection,get,list,patch,update,watch") &&
			!strings.Contains(l, "[create delete deletecollection get list patch update watch]") {
			t.Errorf("api-resources -o wide shows configmaps' verbs as %q", l)
		}
	}
	// Short names resolve.
	r.MustKubectl(t, "", "get", "cm")
	r.MustKubectl(t, "", "get", "deploy")
	if out := r.MustKubectl(t, "", "api-versions"); !strings.Contains(out, "apps/v1\n") || !strings.Contains(out, "v1\n") {
		t.Errorf("api-versions:\n%s", out)
	}
}

// TestKubectlExplain reads the schema of a nested field through the
// OpenAPI v3 documents, as kubectl explain does.
func TestKubectlExplain(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	requireOpenAPI(t, r)
	out := r.MustKubectl(t, "", "explain", "pods.spec.containers")
	for _, want := range []string{"KIND:       Pod", "VERSION:    v1", "FIELD: containers <[]Container>", "image\t<string>", "name\t<string> -required-"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain pods.spec.containers lacks %q:\n%s", want, out)
		}
	}
	out = r.MustKubectl(t, "", "explain", "deployments.spec.replicas")
	if !strings.Contains(out, "GROUP:      apps") || !strings.Contains(out, "FIELD: replicas <integer>") {
		t.Errorf("explain deployments.spec.replicas:\n%s", out)
	}
	out = r.MustKubectl(t, "", "explain", "configmaps", "--recursive")
	if !strings.Contains(out, "binaryData\t<map[string]string>") || !strings.Contains(out, "data\t<map[string]string>") {
		t.Errorf("explain configmaps --recursive:\n%s", out)
	}
	if out, err := r.Kubectl(t, "", "explain", "pods.spec.nosuchfield"); err == nil || !strings.Contains(out, "nosuchfield") {
		t.Errorf("explain of a missing field: err=%v\n%s", err, out)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
