package rbac

import (
	"context"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/authz"

	"github.com/kubesplit/kubesplit/pkg/rbacpolicy"
)

// benchPolicy is 1,000 RoleBindings over 100 namespaces, each binding one
// of 1,000 Roles of five rules (5,000 rules) to a user and a team group,
// plus kube's default policy.
func benchPolicy() objects {
	return manyBindings(100, false)
}

func BenchmarkLoad(b *testing.B) {
	objs := benchPolicy()
	e, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := e.Load(objs.roles, objs.clusterRoles, objs.bindings, objs.clusterBindings, int64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAuthorize(b *testing.B) {
	e := load(b, benchPolicy(), 1)
	// user-425 holds role-5 in ns-42 by name, and every role-5 through
	// team-5: eleven roles in ns-42, one by name.
	u := user("user-425", "team-5", rbacpolicy.SystemAuthenticated)
	cases := []struct {
		name  string
		attrs authz.Attributes
		want  authz.Decision
	}{
		{"allow/first-rule", res(u, "get", "", "configmaps", "ns-42", "c"), authz.DecisionAllow},
		{"allow/last-rule", res(u, "delete", "batch", "jobs/status", "ns-42", "j"), authz.DecisionAllow},
		// get is a verb of role-5, so casbin evaluates the role's lines.
		{"noopinion/evaluated", res(u, "get", "", "pods", "ns-42", "p"), authz.DecisionNoOpinion},
		// No role of the user names escalate: the verb filter skips them.
		{"noopinion/verb-filtered", res(u, "escalate", "", "pods", "ns-42", "p"), authz.DecisionNoOpinion},
		{"noopinion/cluster-scoped", res(u, "get", "", "nodes", "", "n"), authz.DecisionNoOpinion},
		{"allow/non-resource", nonRes(u, "get", "/apis/apps/v1"), authz.DecisionAllow},
		{"allow/system:masters", res(user("root", authz.SystemMastersGroup), "delete", "", "pods", "ns-1", "p"), authz.DecisionAllow},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if got := authorize(b, e, c.attrs); got.Decision != c.want {
				b.Fatalf("decision = %v, want %v", got.Decision, c.want)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.Authorize(ctx, c.attrs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBenchPolicySize keeps the benchmark honest about what it measures.
func TestBenchPolicySize(t *testing.T) {
	objs := benchPolicy()
	rules := 0
	for _, r := range objs.roles {
		rules += len(r.Rules)
	}
	if len(objs.bindings) != 1000 || rules != 5000 {
		t.Fatalf("bench policy has %d bindings and %d rules, want 1000 and 5000", len(objs.bindings), rules)
	}
}
