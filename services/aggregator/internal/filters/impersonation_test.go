package filters

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/request"
)

// recordingAuthorizer allows what allow says and records every question.
type recordingAuthorizer struct {
	allow func(authz.Attributes) bool
	err   error
	asked []authz.Attributes
}

func (a *recordingAuthorizer) Authorize(_ context.Context, attrs authz.Attributes) (authz.Result, error) {
	a.asked = append(a.asked, attrs)
	if a.err != nil {
		return authz.Result{Decision: authz.DecisionNoOpinion}, a.err
	}
	if a.allow(attrs) {
		return authz.Result{Decision: authz.DecisionAllow}, nil
	}
	return authz.Result{Decision: authz.DecisionDeny}, nil
}

func TestImpersonation(t *testing.T) {
	mayImpersonateUsers := func(a authz.Attributes) bool { return a.Resource != "groups" }
	cases := []struct {
		name     string
		headers  map[string][]string
		allow    func(authz.Attributes) bool
		err      error
		code     int
		wantUser string
		groups   []string
		checks   []string // resource/name of each question asked
	}{
		{name: "no headers", code: 200, wantUser: "alice"},
		{name: "group without user", headers: map[string][]string{"Impersonate-Group": {"g"}}, code: 400},
		{name: "two users", headers: map[string][]string{"Impersonate-User": {"a", "b"}}, code: 400},
		{
			name: "allowed user", headers: map[string][]string{"Impersonate-User": {"bob"}},
			allow: mayImpersonateUsers, code: 200, wantUser: "bob",
			groups: []string{"system:authenticated"}, checks: []string{"users/bob"},
		},
		{
			name: "denied group", headers: map[string][]string{"Impersonate-User": {"bob"}, "Impersonate-Group": {"system:masters"}},
			allow: mayImpersonateUsers, code: 403, checks: []string{"users/bob", "groups/system:masters"},
		},
		{
			name: "service account", headers: map[string][]string{"Impersonate-User": {"system:serviceaccount:ns1:builder"}},
			allow: mayImpersonateUsers, code: 200, wantUser: "system:serviceaccount:ns1:builder",
			groups: []string{"system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"},
			checks: []string{"serviceaccounts/builder"},
		},
		{
			name: "authorizer down", headers: map[string][]string{"Impersonate-User": {"bob"}},
			err: errors.New("unreachable"), code: 503, checks: []string{"users/bob"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := &recordingAuthorizer{allow: c.allow, err: c.err}
			var got authenticationv1.UserInfo
			var leaked bool
			h := WithImpersonation(a)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got, _ = request.UserFrom(r.Context())
				leaked = r.Header.Get("Impersonate-User") != ""
			}))
			req := httptest.NewRequest(http.MethodGet, "/api/v1/namespaces", nil)
			for k, vs := range c.headers {
				for _, v := range vs {
					req.Header.Add(k, v)
				}
			}
			req = req.WithContext(request.WithUser(req.Context(), authenticationv1.UserInfo{Username: "alice"}))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != c.code {
				t.Fatalf("code %d, want %d: %s", rec.Code, c.code, rec.Body)
			}
			var checks []string
			for _, q := range a.asked {
				if q.Verb != "impersonate" || q.User.Username != "alice" {
					t.Errorf("asked %+v, want alice's impersonate", q)
				}
				checks = append(checks, q.Resource+"/"+q.Name)
			}
			if !slices.Equal(checks, c.checks) {
				t.Errorf("checks %v, want %v", checks, c.checks)
			}
			if c.code == 403 && !strings.Contains(rec.Body.String(), `cannot impersonate resource \"groups\"`) {
				t.Errorf("403 body lacks kube's message: %s", rec.Body)
			}
			if c.code != 200 {
				return
			}
			if got.Username != c.wantUser || !slices.Equal(got.Groups, c.groups) {
				t.Errorf("user %+v, want %s in %v", got, c.wantUser, c.groups)
			}
			if leaked {
				t.Error("the impersonation headers went on down the chain")
			}
		})
	}
}
