package authz

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/revision"
	"github.com/kubesplit/kubesplit/services/authz/internal/filewatch"
)

const abacPolicy = `{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "*", "resource": "*", "apiGroup": "*"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "devs", "namespace": "ns1", "resource": "pods", "apiGroup": "", "readonly": true}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "system:authenticated", "nonResourcePath": "/version", "readonly": true}}
`

func TestABACMode(t *testing.T) {
	path := writeFile(t, t.TempDir(), "abac.jsonl", abacPolicy)
	e, err := buildTest(t, Config{AuthorizationModes: []string{authz.ModeABAC}, PolicyFile: path}, revision.NewFeed())
	if err != nil {
		t.Fatal(err)
	}
	bob := user("bob", "devs", "system:authenticated")
	checkBoth(t, e, []engineCase{
		{"alice anything", resourceReq(user("alice"), "delete", "ns2", "secrets", "s"), authz.DecisionAllow, false},
		{"devs read pods in ns1", resourceReq(bob, "list", "ns1", "pods", ""), authz.DecisionAllow, false},
		{"devs may not write", resourceReq(bob, "create", "ns1", "pods", ""), authz.DecisionNoOpinion, false},
		{"devs not in ns2", resourceReq(bob, "get", "ns2", "pods", "p"), authz.DecisionNoOpinion, false},
		{"non-resource path", authz.Attributes{User: bob, Verb: "get", Path: "/version"}, authz.DecisionAllow, false},
		{"other path", authz.Attributes{User: bob, Verb: "get", Path: "/metrics"}, authz.DecisionNoOpinion, false},
	})
}

// TestABACReload: a new policy file replaces the old within the
// aggregator's 100 ms and moves the revision; a broken one changes
// nothing.
func TestABACReload(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "abac.jsonl", abacPolicy)
	feed := revision.NewFeed()
	e, err := buildTest(t, Config{AuthorizationModes: []string{authz.ModeABAC}, PolicyFile: path}, feed)
	if err != nil {
		t.Fatal(err)
	}
	aliceDeletes := resourceReq(user("alice"), "delete", "ns2", "secrets", "s")
	before, _ := feed.Current()
	if before == 0 {
		t.Fatal("no revision after the first load")
	}
	if res, _ := e.authorizer.Authorize(t.Context(), aliceDeletes); res.Revision != before {
		t.Errorf("answer's revision %d, want the feed's %d", res.Revision, before)
	}

	writeFile(t, dir, "abac.jsonl", strings.SplitN(abacPolicy, "\n", 2)[1])
	if took := waitForDecision(t, e.authorizer, aliceDeletes, authz.DecisionNoOpinion); took > time.Second {
		t.Errorf("reload took %v", took)
	}
	waitForRevision(t, feed, before+1)

	after, _ := feed.Current()
	writeFile(t, dir, "abac.jsonl", "{not json\n")
	time.Sleep(10 * filewatch.DefaultInterval)
	if rev, _ := feed.Current(); rev != after {
		t.Errorf("a broken file moved the revision from %d to %d", after, rev)
	}
	if d := decision(t, e.authorizer, resourceReq(user("bob", "devs"), "list", "ns1", "pods", "")); d != authz.DecisionAllow {
		t.Errorf("after a broken file: %v, want the previous policy's Allow", d)
	}
}

func TestABACRefusesAtStart(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]struct {
		path, want string
	}{
		"no file given": {"", "policy file"},
		"missing file":  {dir + "/absent.jsonl", "absent.jsonl"},
		"malformed":     {writeFile(t, dir, "bad.jsonl", abacPolicy+"{nope\n"), "bad.jsonl"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := buildTest(t, Config{AuthorizationModes: []string{authz.ModeABAC}, PolicyFile: c.path}, revision.NewFeed())
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("buildChain = %v, want ErrInvalidConfig naming %q", err, c.want)
			}
		})
	}
}

// TestABACRules: kubectl auth can-i --list lists what the ABAC policy
// gives the user, from kube's own rule resolver.
func TestABACRules(t *testing.T) {
	path := writeFile(t, t.TempDir(), "abac.jsonl", abacPolicy)
	e, err := buildTest(t, Config{AuthorizationModes: []string{authz.ModeABAC}, PolicyFile: path}, revision.NewFeed())
	if err != nil {
		t.Fatal(err)
	}
	rules := e.rules(user("bob", "devs"), "ns1")
	if rules.incomplete {
		t.Error("ABAC's rules are incomplete")
	}
	found := false
	for _, r := range rules.resource {
		if slices.Equal(r.Resources, []string{"pods"}) && slices.Contains(r.Verbs, "list") && !slices.Contains(r.Verbs, "create") {
			found = true
		}
	}
	if !found {
		t.Errorf("bob's rules %+v, want pods read-only", rules.resource)
	}
}
