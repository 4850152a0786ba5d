package handler

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/authz"
)

// An admission policy's paramKind and a binding's paramRef must name what
// the writer may read itself, as kube checks them, so that nobody reads
// through a policy's messages what they may not read directly: a writer
// without get (list, for a paramRef without a name) on the params is
// refused (422, spec.paramKind / spec.paramRef Forbidden) and nothing is
// stored; one with it, or in system:masters, is not.
func TestPolicyParamsNeedTheWritersReadAccess(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	var asked []string
	e.h.SetAuthorizer(authz.AuthorizerFunc(func(_ context.Context, a authz.Attributes) (authz.Result, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, a.User.Username+" "+a.Verb+" "+a.APIGroup+"/"+a.Resource+" "+a.Namespace+"/"+a.Name)
		if a.User.Username == "reader" && a.Resource == "configmaps" {
			return authz.Result{Decision: authz.DecisionAllow}, nil
		}
		return authz.Result{Decision: authz.DecisionNoOpinion}, nil
	}))
	const policies = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies"
	const bindings = "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings"
	policy := func(name string) string {
		return `{"metadata":{"name":"` + name + `"},"spec":{"paramKind":{"apiVersion":"v1","kind":"ConfigMap"},` +
			`"matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"]}]},` +
			`"validations":[{"expression":"true"}]}}`
	}
	binding := func(name, ref string) string {
		return `{"metadata":{"name":"` + name + `"},"spec":{"policyName":"p","validationActions":["Deny"],"paramRef":` + ref + `}}`
	}

	before := e.etcdState()
	resp, body := e.do("POST", policies, policy("p"), "X-Test-User", "writer")
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), `spec.paramKind: Forbidden`) ||
		!strings.Contains(string(body), `must have \"get\" permission on all objects of the referenced paramKind (kind=ConfigMap, apiVersion=v1)`) {
		t.Fatalf("policy by a writer who may not read configmaps: %d %s", resp.StatusCode, body)
	}
	if len(asked) != 1 || asked[0] != "writer get /configmaps */*" {
		t.Errorf("asked %q, want one get of every configmap", asked)
	}
	e.untouched(before, "a refused policy")

	e.mustDo("POST", policies, policy("p"), http.StatusCreated, "X-Test-User", "reader")

	before = e.etcdState()
	resp, body = e.do("POST", bindings, binding("b", `{"name":"params","namespace":"ns","parameterNotFoundAction":"Deny"}`), "X-Test-User", "writer")
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), `spec.paramRef: Forbidden`) {
		t.Fatalf("binding by a writer who may not read the params: %d %s", resp.StatusCode, body)
	}
	e.untouched(before, "a refused binding")
	asked = nil
	e.mustDo("POST", bindings, binding("b", `{"selector":{},"namespace":"ns","parameterNotFoundAction":"Deny"}`), http.StatusCreated, "X-Test-User", "reader")
	if len(asked) != 1 || asked[0] != "reader list /configmaps ns/" {
		t.Errorf("asked %q, want one list of configmaps in ns", asked)
	}

	// Without an authorizer, only system:masters writes such objects.
	e.h.SetAuthorizer(nil)
	if resp, body := e.do("POST", policies, policy("q"), "X-Test-User", "reader"); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("without an authorizer: %d %s, want 422", resp.StatusCode, body)
	}
}
