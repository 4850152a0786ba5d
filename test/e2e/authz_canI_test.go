package e2e

import (
	"context"
	"github.com/kubesplit/kubesplit/pkg/polltest"
	"strings"
	"testing"
	"time"
)

// TestAuthzCanIThroughAggregator: kubectl auth can-i, which posts
// SelfSubjectAccessReviews and SelfSubjectRulesReviews in protobuf, is
// answered by the authz service through the aggregator, for the caller
// the aggregator authenticated, with the policy that decides requests.
func TestAuthzCanIThroughAggregator(t *testing.T) {
	agg, _, _ := startAuthzStack(t)
	admin := agg.Kubeconfig(t, "admin", authzAdminToken)
	bob := agg.Kubeconfig(t, "bob", authzBobToken)
	canI := func(kubeconfig string, args ...string) (string, error) {
		return agg.Kubectl(t, kubeconfig, "", append([]string{"auth", "can-i"}, args...)...)
	}
	// The output mixes in kubectl's warnings (stderr): the answer is the
	// line that is only yes or no.
	answer := func(out string) string {
		for _, l := range lines(out) {
			if l = strings.TrimSpace(l); l == "yes" || l == "no" {
				return l
			}
		}
		return ""
	}

	// Until the aggregator's health check has seen authz ready it answers
	// 503, so the first answer may take a check interval.
	var out string
	var err error
	if !polltest.Holds(t, 30*time.Second, func(context.Context) (bool, error) {
		out, err = canI(bob, "list", "configmaps", "-n", "default")
		return answer(out) == "no", nil
	}) {
		t.Fatalf("can-i as bob before any binding never said no: %v\n%s", err, out)
	}

	if out, err := agg.Kubectl(t, admin, "", "create", "rolebinding", "bob-view",
		"--clusterrole=view", "--user=bob", "-n", "default"); err != nil {
		t.Fatalf("create rolebinding: %v\n%s", err, out)
	}
	if !polltest.Holds(t, 30*time.Second, func(context.Context) (bool, error) {
		out, err = canI(bob, "list", "configmaps", "-n", "default")
		return answer(out) == "yes" && err == nil, nil
	}) {
		t.Fatalf("can-i as bob after the RoleBinding never said yes: %v\n%s", err, out)
	}
	if out, err := canI(bob, "delete", "configmaps", "-n", "default"); answer(out) != "no" {
		t.Errorf("can-i delete as a viewer = %v\n%s, want no", err, out)
	}

	out, err = canI(bob, "--list", "-n", "default")
	if err != nil {
		t.Fatalf("can-i --list as bob: %v\n%s", err, out)
	}
	if !listsReadOnly(out, "configmaps") {
		t.Errorf("can-i --list as bob does not show configmaps with get, list, watch:\n%s", out)
	}

	out, err = agg.Kubectl(t, admin, "", "api-resources", "--api-group=authorization.k8s.io", "-o", "name")
	for _, want := range []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews", "subjectaccessreviews"} {
		if !strings.Contains(out, want+".authorization.k8s.io") {
			t.Errorf("kubectl api-resources does not list %s: %v\n%s", want, err, out)
		}
	}

	if out, err := canI(admin, "*", "*"); err != nil || answer(out) != "yes" {
		t.Errorf("can-i '*' '*' as admin = %v\n%s, want yes", err, out)
	}
	if out, err := canI(bob, "*", "*"); answer(out) != "no" {
		t.Errorf("can-i '*' '*' as bob = %v\n%s, want no", err, out)
	}
}

// listsReadOnly reports whether a can-i --list table has a row for
// resource with exactly the verbs get, list and watch.
func listsReadOnly(out, resource string) bool {
	for _, l := range lines(out) {
		f := strings.Fields(l)
		if len(f) > 0 && f[0] == resource && strings.Contains(l, "[get list watch]") {
			return true
		}
	}
	return false
}
