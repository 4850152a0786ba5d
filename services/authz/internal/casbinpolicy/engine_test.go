package casbinpolicy

import (
	"context"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/authz"
)

// Models of different shapes, each naming a different subset of the
// request fields.
const (
	aclModel = `
[request_definition]
r = sub, obj, act
[policy_definition]
p = sub, obj, act
[policy_effect]
e = some(where (p.eft == allow))
[matchers]
m = r.sub == p.sub && r.obj == p.obj && r.act == p.act
`
	// Owners edit their own namespace: the policy maps users to the
	// namespaces they own, in a domain-RBAC model.
	domainModel = `
[request_definition]
r = sub, dom, obj, act
[policy_definition]
p = sub, dom, obj, act
[role_definition]
g = _, _, _
[policy_effect]
e = some(where (p.eft == allow))
[matchers]
m = g(r.sub, p.sub, r.dom) && r.dom == p.dom && keyMatch(r.obj, p.obj) && regexMatch(r.act, p.act)
`
	denyModel = `
[request_definition]
r = user, groups, verb, resource, name
[policy_definition]
p = sub, verb, resource, eft
[policy_effect]
e = some(where (p.eft == allow)) && !some(where (p.eft == deny))
[matchers]
m = (r.user == p.sub || p.sub in r.groups) && (p.verb == "*" || r.verb == p.verb) && r.resource == p.resource
`
)

var (
	bob   = authenticationv1.UserInfo{Username: "bob", Groups: []string{"devs", "system:authenticated"}}
	alice = authenticationv1.UserInfo{Username: "alice", Groups: []string{"system:authenticated"}}
)

func res(u authenticationv1.UserInfo, verb, ns, resource, sub string) authz.Attributes {
	return authz.Attributes{User: u, Verb: verb, Namespace: ns, Resource: resource, Subresource: sub, ResourceRequest: true}
}

func TestEngineDecides(t *testing.T) {
	cases := []struct {
		name, model, policy string
		a                   authz.Attributes
		want                authz.Decision
	}{
		{"acl allows", aclModel, "p, bob, pods, get", res(bob, "get", "ns1", "pods", ""), authz.DecisionAllow},
		{"acl no match is no opinion", aclModel, "p, bob, pods, get", res(bob, "list", "ns1", "pods", ""), authz.DecisionNoOpinion},
		{"acl subresource in obj", aclModel, "p, bob, pods/log, get", res(bob, "get", "ns1", "pods", "log"), authz.DecisionAllow},
		{"acl obj is path for non-resource", aclModel, "p, bob, /healthz, get",
			authz.Attributes{User: bob, Verb: "get", Path: "/healthz"}, authz.DecisionAllow},
		{"domain owner edits own namespace", domainModel, "p, owner, team-a, *, (get)|(update)\ng, bob, owner, team-a",
			res(bob, "update", "team-a", "configmaps", ""), authz.DecisionAllow},
		{"domain owner not in other namespace", domainModel, "p, owner, team-a, *, (get)|(update)\ng, bob, owner, team-a",
			res(bob, "update", "team-b", "configmaps", ""), authz.DecisionNoOpinion},
		{"group rule allows", denyModel, "p, devs, *, pods, allow", res(bob, "delete", "", "pods", ""), authz.DecisionAllow},
		{"deny rule wins", denyModel, "p, devs, *, pods, allow\np, bob, delete, pods, deny",
			res(bob, "delete", "", "pods", ""), authz.DecisionDeny},
		{"deny rule only for bob", denyModel, "p, system:authenticated, *, pods, allow\np, bob, delete, pods, deny",
			res(alice, "delete", "", "pods", ""), authz.DecisionAllow},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := New(c.model, c.policy)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Authorize(context.Background(), c.a)
			if err != nil {
				t.Fatal(err)
			}
			if got.Decision != c.want {
				t.Errorf("decision = %v (%q), want %v", got.Decision, got.Reason, c.want)
			}
		})
	}
}

// TestNewEmptyPolicy: an empty policy is a policy that matches nothing.
func TestNewEmptyPolicy(t *testing.T) {
	e, err := New(aclModel, "# nobody yet\n")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := e.Authorize(context.Background(), res(bob, "get", "", "pods", "")); got.Decision != authz.DecisionNoOpinion {
		t.Errorf("decision = %v, want NoOpinion", got.Decision)
	}
}

func TestNewRefuses(t *testing.T) {
	cases := map[string]struct{ model, policy, want string }{
		"empty model":    {"", "", "casbin model"},
		"unknown field":  {strings.Replace(aclModel, "r = sub, obj, act", "r = sub, colour, act", 1), "", `"colour"`},
		"no request":     {"[policy_definition]\np = sub\n", "", "casbin model"},
		"unclosed quote": {aclModel, "p, bob, pods, get\np, \"bob, pods, get", "line 2"},
		"unknown type":   {aclModel, "q, bob, pods, get", `"q"`},
		"short rule":     {aclModel, "p, bob, pods", "defines 3"},
		"long rule":      {aclModel, "p, bob, pods, get, list", "defines 3"},
		"short grouping": {domainModel, "g, bob, owner", "defines 3"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := New(c.model, c.policy)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("New = %v, want an error naming %s", err, c.want)
			}
		})
	}
}
