package e2e

import (
	"context"
	"fmt"
	"github.com/kubesplit/kubesplit/pkg/polltest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAuthzSwitchEngine: the running stack's authz is switched from RBAC
// to a casbin model of the user's own (the README's example, "owners may
// edit their own namespace's objects, but not delete its secrets") in
// front of RBAC, the policy file is edited while it runs, and authz is
// switched back to RBAC alone; no code, only flags and files.
func TestAuthzSwitchEngine(t *testing.T) {
	s := startAuthzStackWith(t)
	admin := s.agg.Kubeconfig(t, "admin", authzAdminToken)
	bob := s.agg.Kubeconfig(t, "bob", authzBobToken)
	if out, err := s.agg.Kubectl(t, admin, "", "create", "namespace", "team-bob"); err != nil {
		t.Fatalf("create namespace: %v\n%s", err, out)
	}
	n := 0
	bobCreates := func() (string, error) {
		n++
		return s.agg.Kubectl(t, bob, "", "create", "configmap", fmt.Sprintf("c%d", n), "-n", "team-bob")
	}
	forbidden := func(out string, err error) bool { return err != nil && strings.Contains(out, "forbidden") }
	wait := func(what string, timeout time.Duration, ok func(string, error) bool, do func() (string, error)) time.Duration {
		t.Helper()
		start := time.Now()
		var out string
		var err error
		if !polltest.Holds(t, timeout, func(context.Context) (bool, error) {
			out, err = do()
			return ok(out, err), nil
		}) {
			t.Fatalf("%s: not within %v: %v\n%s", what, timeout, err, out)
		}
		return time.Since(start)
	}
	allowed := func(_ string, err error) bool { return err == nil }

	wait("RBAC forbids bob", 30*time.Second, forbidden, bobCreates)

	// The README's example, copied aside so that the test can edit it.
	dir := t.TempDir()
	model, policy := filepath.Join(dir, "owners.conf"), filepath.Join(dir, "owners.csv")
	copyFile(t, "../../deploy/compose/authz-policy/owners.conf", model)
	copyFile(t, "../../deploy/compose/authz-policy/owners.csv", policy)
	s.restartAuthz(t, "--authorization-mode=Casbin,RBAC", "--casbin-model="+model, "--casbin-policy="+policy)
	took := wait("casbin lets bob edit his namespace", 30*time.Second, allowed, bobCreates)
	t.Logf("the switch to Casbin,RBAC reached bob %v after authz was ready", took.Round(time.Millisecond))
	if out, err := s.agg.Kubectl(t, bob, "", "delete", "secret", "s", "-n", "team-bob"); !forbidden(out, err) {
		t.Errorf("bob deleting a secret under the casbin deny rule: %v\n%s", err, out)
	}
	if out, err := s.agg.Kubectl(t, bob, "", "create", "configmap", "c", "-n", "default"); !forbidden(out, err) {
		t.Errorf("bob creating outside his namespace: %v\n%s", err, out)
	}

	// An edit of the policy file is in force, and the aggregator's cached
	// allows of the old one dropped, with no restart.
	data, err := os.ReadFile(policy)
	if err != nil {
		t.Fatal(err)
	}
	writeAside(t, policy, strings.Replace(string(data), "g, bob, owner, team-bob\n", "", 1))
	edited := time.Now()
	wait("the edited policy takes bob's namespace away", 10*time.Second, forbidden, bobCreates)
	took = time.Since(edited)
	t.Logf("the policy edit reached bob %v after the file was written (target 100ms plus kubectl)", took.Round(time.Millisecond))
	if took > 3*time.Second {
		t.Errorf("the policy edit took %v to reach bob, want well under 3s", took)
	}
	writeAside(t, policy, string(data))
	wait("the restored policy gives it back", 10*time.Second, allowed, bobCreates)

	// Back to RBAC: bob has no binding. RBAC counts revisions from
	// elsewhere than casbin did; the aggregator follows authz's count
	// backwards too, so no allow cached from casbin outlives the switch.
	s.restartAuthz(t)
	took = wait("RBAC forbids bob again", 30*time.Second, forbidden, bobCreates)
	t.Logf("the switch back to RBAC reached bob %v after authz was ready", took.Round(time.Millisecond))
	if took > 3*time.Second {
		t.Errorf("the switch back to RBAC took %v to reach bob, want well under 3s (no cached casbin allow reused)", took)
	}
}

// copyFile copies from to to.
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	writeAside(t, to, string(data))
}

// writeAside writes data to path through a rename, as an editor saves, so
// that a reader never sees half a file.
func writeAside(t *testing.T, path, data string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// TestAuthzNodeMode: with kube's usual --authorization-mode=Node,RBAC, a
// kubelet with node credentials reads the secret of a pod bound to its
// node through the aggregator, not another one, not the list; once the
// pod is gone, not that secret either (the graph's change moves authz's
// revision, so the aggregator's cached allow goes too).
func TestAuthzNodeMode(t *testing.T) {
	s := startAuthzStackWith(t, "--authorization-mode=Node,RBAC")
	admin := s.agg.Kubeconfig(t, "admin", authzAdminToken)
	node := s.agg.Kubeconfig(t, "n1", authzNodeToken)
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default"},
"spec":{"nodeName":"n1","containers":[{"name":"c","image":"nginx"}],
"volumes":[{"name":"s","secret":{"secretName":"mine"}}]}}`
	for _, args := range [][]string{
		{"create", "secret", "generic", "mine", "-n", "default", "--from-literal=k=v"},
		{"create", "secret", "generic", "other", "-n", "default", "--from-literal=k=v"},
	} {
		if out, err := s.agg.Kubectl(t, admin, "", args...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	if out, err := s.agg.Kubectl(t, admin, pod, "create", "-f", "-"); err != nil {
		t.Fatalf("create pod: %v\n%s", err, out)
	}
	get := func(name string) func() (string, error) {
		return func() (string, error) { return s.agg.Kubectl(t, node, "", "get", "secret", name, "-n", "default") }
	}
	allowed := func(_ string, err error) bool { return err == nil }
	forbidden := func(out string, err error) bool { return err != nil && strings.Contains(out, "forbidden") }
	waitFor := func(what string, ok func(string, error) bool, do func() (string, error)) time.Duration {
		t.Helper()
		start := time.Now()
		var out string
		var err error
		if !polltest.Holds(t, 30*time.Second, func(context.Context) (bool, error) {
			out, err = do()
			return ok(out, err), nil
		}) {
			t.Fatalf("%s: not within 30s: %v\n%s", what, err, out)
		}
		return time.Since(start)
	}
	waitFor("the node reads its pod's secret", allowed, get("mine"))
	if out, err := get("other")(); !forbidden(out, err) {
		t.Errorf("the node reading a secret no pod of its uses: %v\n%s", err, out)
	}
	if out, err := s.agg.Kubectl(t, node, "", "get", "secrets", "-n", "default"); !forbidden(out, err) {
		t.Errorf("the node listing secrets: %v\n%s", err, out)
	}
	if out, err := s.agg.Kubectl(t, admin, "", "delete", "pod", "web", "-n", "default", "--grace-period=0", "--force"); err != nil {
		t.Fatalf("delete pod: %v\n%s", err, out)
	}
	took := waitFor("the node loses the secret with the pod", forbidden, get("mine"))
	t.Logf("the pod's deletion reached the node's reads %v after kubectl returned", took.Round(time.Millisecond))
	if took > 3*time.Second {
		t.Errorf("the node kept reading the secret %v after its pod was deleted, want well under 3s", took)
	}
}
