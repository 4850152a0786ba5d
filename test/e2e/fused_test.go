package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestFusedComposition runs the whole chain in one process (bin/kubesplit)
// and drives it with kubectl: the same stages as the split stack, called
// in process. Authentication (token file), RBAC from the API, admission
// (NamespaceLifecycle, ServiceAccount, MutatingAdmissionPolicy) and the
// registry all answer. One --controllers list reaches the registry's
// controllers and admission's quota recount alike.
func TestFusedComposition(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(authzAdminToken+`,admin,uid-admin,"system:masters"`+"\n"+authzBobToken+",bob,uid-bob\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := framework.StartFused(t, "--token-auth-file", tokens, "--etcd-servers", framework.StartEtcd(t).Endpoint,
		"--controllers=*,-resourcequota-controller")
	admin := f.Kubeconfig(t, "admin", authzAdminToken)
	bob := f.Kubeconfig(t, "bob", authzBobToken)
	var out string
	var err error
	if !pollUntil(60*time.Second, func() bool {
		out, err = f.Kubectl(t, admin, "", "get", "serviceaccount", "default", "-n", "default")
		return err == nil
	}) {
		t.Fatalf("the fused server never served the default ServiceAccount: %v\n%s", err, out)
	}
	if out, err := f.Kubectl(t, bob, "", "get", "configmaps"); err == nil || !strings.Contains(out, `User "bob" cannot list`) {
		t.Fatalf("bob before any binding: %v\n%s", err, out)
	}
	if out, err := f.Kubectl(t, admin, "", "create", "rolebinding", "bob-edit", "--clusterrole=edit", "--user=bob"); err != nil {
		t.Fatalf("create rolebinding: %v\n%s", err, out)
	}
	if !pollUntil(10*time.Second, func() bool {
		out, err = f.Kubectl(t, bob, "", "run", "web", "--image=nginx")
		return err == nil
	}) {
		t.Fatalf("bob could not create a pod after the RoleBinding: %v\n%s", err, out)
	}
	// The ServiceAccount admission plugin, in process, gave it one.
	if out, err := f.Kubectl(t, admin, "", "get", "pod", "web", "-o", "jsonpath={.spec.serviceAccountName}"); err != nil || out != "default" {
		t.Errorf("pod's service account = %q (%v), want default from admission", out, err)
	}
	if out, err := f.Kubectl(t, admin, "", "delete", "namespace", "kube-system"); err == nil || !strings.Contains(out, "Forbidden") {
		t.Errorf("deleting kube-system: %v\n%s", err, out)
	}
	// MutatingAdmissionPolicy, in process, labels the configmaps its
	// binding selects.
	if out, err := f.Kubectl(t, admin, labelPolicy+"\n"+labelBinding+"\n"+`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"map-on","labels":{"e2e-mutate":"yes"}}}`, "create", "-f", "-"); err != nil {
		t.Fatalf("create the policy: %v\n%s", err, out)
	}
	if !pollUntil(10*time.Second, func() bool {
		out, err = f.Kubectl(t, admin, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"cm-","namespace":"map-on"},"data":{"k":"v"}}`,
			"create", "-f", "-", "-o", "jsonpath={.metadata.labels.e2e-mutated}")
		return err == nil && out == "yes"
	}) {
		t.Errorf("a configmap under the policy: %v\n%s", err, out)
	}
	// The serviceaccount controller made the default ServiceAccounts; the
	// quota recount, left out, computes no quota's status.
	if out, err := f.Kubectl(t, admin, "", "create", "quota", "q", "--hard=pods=5", "-n", "kube-public"); err != nil {
		t.Fatalf("create quota: %v\n%s", err, out)
	}
	if pollUntil(3*time.Second, func() bool {
		out, err = f.Kubectl(t, admin, "", "get", "quota", "q", "-n", "kube-public", "-o", "jsonpath={.status.hard}")
		return err == nil && out != ""
	}) {
		t.Errorf("the quota's status was computed with resourcequota-controller left out: %s", out)
	}
}
