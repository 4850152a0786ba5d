package authz

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/revision"
)

// ownersModel: owners may do anything to their own namespace's objects,
// a deny rule forbids deleting secrets anywhere.
const (
	ownersModel = `[request_definition]
r = sub, ns, obj, act

[policy_definition]
p = sub, ns, obj, act, eft

[policy_effect]
e = some(where (p.eft == allow)) && !some(where (p.eft == deny))

[matchers]
m = r.sub == p.sub && (p.ns == "*" || r.ns == p.ns) && keyMatch(r.obj, p.obj) && keyMatch(r.act, p.act)
`
	ownersPolicy = `p, alice, team-a, *, *, allow
p, bob, team-b, *, *, allow
p, alice, *, secrets, delete, deny
`
)

func TestCasbinMode(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{
		AuthorizationModes: []string{authz.ModeCasbin},
		CasbinModel:        writeFile(t, dir, "model.conf", ownersModel),
		CasbinPolicy:       writeFile(t, dir, "policy.csv", ownersPolicy),
	}
	e, err := buildTest(t, cfg, revision.NewFeed())
	if err != nil {
		t.Fatal(err)
	}
	alice, bob := user("alice", "system:authenticated"), user("bob")
	checkBoth(t, e, []engineCase{
		{"owner edits own namespace", resourceReq(alice, "update", "team-a", "configmaps", "c"), authz.DecisionAllow, false},
		{"owner reads", resourceReq(alice, "get", "team-a", "pods", "p"), authz.DecisionAllow, false},
		{"not the owner", resourceReq(bob, "update", "team-a", "configmaps", "c"), authz.DecisionNoOpinion, false},
		{"owner's other namespace", resourceReq(alice, "get", "team-b", "pods", "p"), authz.DecisionNoOpinion, false},
		{"deny rule", resourceReq(alice, "delete", "team-a", "secrets", "s"), authz.DecisionDeny, false},
	})
}

// TestCasbinChain: a casbin deny ends the chain; its NoOpinion passes on.
func TestCasbinChain(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{
		AuthorizationModes: []string{authz.ModeCasbin, authz.ModeAlwaysAllow},
		CasbinModel:        writeFile(t, dir, "model.conf", ownersModel),
		CasbinPolicy:       writeFile(t, dir, "policy.csv", ownersPolicy),
	}
	e, err := buildTest(t, cfg, revision.NewFeed())
	if err != nil {
		t.Fatal(err)
	}
	checkBoth(t, e, []engineCase{
		{"deny decides", resourceReq(user("alice"), "delete", "team-a", "secrets", "s"), authz.DecisionDeny, false},
		{"no opinion passes on", resourceReq(user("carol"), "get", "team-a", "pods", "p"), authz.DecisionAllow, false},
	})
}

// TestCasbinReload: a change of either file is in force, with a new
// revision, within the aggregator's 100 ms.
func TestCasbinReload(t *testing.T) {
	dir := t.TempDir()
	feed := revision.NewFeed()
	cfg := Config{
		AuthorizationModes: []string{authz.ModeCasbin},
		CasbinModel:        writeFile(t, dir, "model.conf", ownersModel),
		CasbinPolicy:       writeFile(t, dir, "policy.csv", ownersPolicy),
	}
	e, err := buildTest(t, cfg, feed)
	if err != nil {
		t.Fatal(err)
	}
	carol := resourceReq(user("carol"), "get", "team-c", "pods", "p")
	before, _ := feed.Current()
	writeFile(t, dir, "policy.csv", ownersPolicy+"p, carol, team-c, *, get, allow\n")
	if took := waitForDecision(t, e.authorizer, carol, authz.DecisionAllow); took > time.Second {
		t.Errorf("reload took %v", took)
	}
	waitForRevision(t, feed, before+1)
	if res, _ := e.authorizer.Authorize(t.Context(), carol); res.Revision <= before {
		t.Errorf("answer's revision %d, want past %d", res.Revision, before)
	}

	after, _ := feed.Current()
	writeFile(t, dir, "model.conf", "[request_definition]\nr = colour\n")
	time.Sleep(200 * time.Millisecond)
	if rev, _ := feed.Current(); rev != after {
		t.Errorf("a broken model moved the revision from %d to %d", after, rev)
	}
	if d := decision(t, e.authorizer, carol); d != authz.DecisionAllow {
		t.Errorf("after a broken model: %v, want the previous policy's Allow", d)
	}
}

func TestCasbinRefusesAtStart(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "model.conf", ownersModel)
	policy := writeFile(t, dir, "policy.csv", ownersPolicy)
	cases := map[string]struct{ model, policy, want string }{
		"no model":        {"", policy, "--casbin-model"},
		"no policy":       {model, "", "--casbin-policy"},
		"missing model":   {dir + "/absent.conf", policy, "absent.conf"},
		"malformed model": {writeFile(t, dir, "bad.conf", "[matchers]\nm = r.sub ==\n"), policy, "casbin"},
		"unknown field":   {writeFile(t, dir, "colour.conf", strings.Replace(ownersModel, "r = sub, ns", "r = sub, colour", 1)), policy, "colour"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := buildTest(t, Config{AuthorizationModes: []string{authz.ModeCasbin}, CasbinModel: c.model, CasbinPolicy: c.policy}, revision.NewFeed())
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("buildChain = %v, want ErrInvalidConfig naming %q", err, c.want)
			}
		})
	}
}

// TestCasbinDeployExample: the README's example model and policy
// (deploy/compose/authz-policy) decide as the README says.
func TestCasbinDeployExample(t *testing.T) {
	const dir = "../../../deploy/compose/authz-policy"
	e, err := buildTest(t, Config{
		AuthorizationModes: []string{authz.ModeCasbin},
		CasbinModel:        dir + "/owners.conf",
		CasbinPolicy:       dir + "/owners.csv",
	}, revision.NewFeed())
	if err != nil {
		t.Fatal(err)
	}
	bob := user("bob", "system:authenticated")
	logs := resourceReq(bob, "get", "team-bob", "pods", "p")
	logs.Subresource = "log"
	checkBoth(t, e, []engineCase{
		{"owner edits own namespace", resourceReq(bob, "update", "team-bob", "configmaps", "c"), authz.DecisionAllow, false},
		{"owner reads logs", logs, authz.DecisionAllow, false},
		{"another's namespace", resourceReq(bob, "update", "team-carol", "configmaps", "c"), authz.DecisionNoOpinion, false},
		{"cluster-scoped", resourceReq(bob, "list", "", "namespaces", ""), authz.DecisionNoOpinion, false},
		{"secrets are not deleted", resourceReq(bob, "delete", "team-bob", "secrets", "s"), authz.DecisionDeny, false},
	})
}
