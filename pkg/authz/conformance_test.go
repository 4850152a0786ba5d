package authz

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// policyRevision is the revision every answer of testPolicy carries.
const policyRevision = 42

// testPolicy is a small engine standing in for RBAC. It records the last
// attributes it saw, so the tests can check the webhook carries them whole.
type testPolicy struct {
	mu   sync.Mutex
	seen Attributes
}

func (p *testPolicy) Authorize(_ context.Context, a Attributes) (Result, error) {
	p.mu.Lock()
	p.seen = a
	p.mu.Unlock()
	allow := func(reason string) (Result, error) {
		return Result{Decision: DecisionAllow, Reason: reason, Revision: policyRevision}, nil
	}
	u := a.User
	switch {
	case u.Username == "broken":
		return Result{Decision: DecisionNoOpinion, Revision: policyRevision}, errors.New("policy store unreachable")
	case u.Username == "bob" && a.Resource == "secrets":
		return Result{Decision: DecisionDeny, Reason: "bob may not touch secrets", Revision: policyRevision}, nil
	case !a.ResourceRequest && a.Path == "/healthz" && a.Verb == "get":
		return allow("")
	case u.Username == "alice" && a.Namespace == "team" && a.Resource == "configmaps" && a.Verb == "get":
		return allow("alice reads team configmaps")
	case u.Username == "alice" && a.Resource == "pods" && a.Subresource == "log":
		return allow("alice reads logs")
	case len(u.Groups) > 0 && u.Groups[0] == "ops" && a.Resource == "nodes" && a.Namespace == "" && a.Verb == "list":
		return allow("ops list nodes")
	case u.Username == "quiet":
		return Result{Decision: DecisionNoOpinion, Revision: policyRevision}, nil
	}
	return Result{Decision: DecisionNoOpinion, Reason: "no rule matched", Revision: policyRevision}, nil
}

func (p *testPolicy) lastSeen() Attributes {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen
}

// conformanceCase is one request, what the authorizer answers and what the
// middleware makes of it.
type conformanceCase struct {
	name   string
	user   authenticationv1.UserInfo
	method string
	path   string

	want    Result
	wantErr bool
	code    int
	message string // of the 403
}

var (
	alice   = authenticationv1.UserInfo{Username: "alice", UID: "u-alice", Groups: []string{"dev", "system:authenticated"}}
	bob     = authenticationv1.UserInfo{Username: "bob"}
	carol   = authenticationv1.UserInfo{Username: "carol", Extra: map[string]authenticationv1.ExtraValue{"scopes": {"a", "b"}}}
	dave    = authenticationv1.UserInfo{Username: "dave", Groups: []string{"ops"}}
	root    = authenticationv1.UserInfo{Username: "root", Groups: []string{SystemMastersGroup}}
	quiet   = authenticationv1.UserInfo{Username: "quiet"}
	broken  = authenticationv1.UserInfo{Username: "broken"}
	allowed = func(reason string) Result { return Result{DecisionAllow, reason, policyRevision} }
	noRule  = Result{DecisionNoOpinion, "no rule matched", policyRevision}
)

var conformanceCases = []conformanceCase{
	{name: "allow", user: alice, method: "GET", path: "/api/v1/namespaces/team/configmaps/x",
		want: allowed("alice reads team configmaps"), code: 200},
	{name: "deny", user: bob, method: "GET", path: "/api/v1/namespaces/team/secrets/s",
		want: Result{DecisionDeny, "bob may not touch secrets", policyRevision}, code: 403,
		message: `secrets "s" is forbidden: User "bob" cannot get resource "secrets" in API group "" in the namespace "team": bob may not touch secrets`},
	{name: "no opinion", user: carol, method: "GET", path: "/apis/apps/v1/namespaces/team/deployments",
		want: noRule, code: 403,
		message: `deployments.apps is forbidden: User "carol" cannot list resource "deployments" in API group "apps" in the namespace "team": no rule matched`},
	{name: "no opinion without a reason", user: quiet, method: "GET", path: "/api/v1/namespaces/ns/configmaps/x",
		want: Result{DecisionNoOpinion, "", policyRevision}, code: 403,
		message: `configmaps "x" is forbidden: User "quiet" cannot get resource "configmaps" in API group "" in the namespace "ns"`},
	{name: "system:masters", user: root, method: "DELETE", path: "/api/v1/nodes/n1",
		want: Result{Decision: DecisionAllow}, code: 200},
	{name: "non-resource /healthz", user: carol, method: "GET", path: "/healthz",
		want: allowed(""), code: 200},
	{name: "non-resource forbidden", user: carol, method: "GET", path: "/metrics",
		want: noRule, code: 403,
		message: `forbidden: User "carol" cannot get path "/metrics": no rule matched`},
	{name: "subresource", user: alice, method: "GET", path: "/api/v1/namespaces/team/pods/p/log",
		want: allowed("alice reads logs"), code: 200},
	{name: "subresource forbidden", user: alice, method: "POST", path: "/api/v1/namespaces/team/pods/p/exec",
		want: noRule, code: 403,
		message: `pods "p" is forbidden: User "alice" cannot create resource "pods/exec" in API group "" in the namespace "team": no rule matched`},
	{name: "cluster-scoped", user: dave, method: "GET", path: "/api/v1/nodes",
		want: allowed("ops list nodes"), code: 200},
	{name: "cluster-scoped forbidden", user: carol, method: "GET", path: "/api/v1/nodes/n1",
		want: noRule, code: 403,
		message: `nodes "n1" is forbidden: User "carol" cannot get resource "nodes" in API group "" at the cluster scope: no rule matched`},
	{name: "evaluation error", user: broken, method: "GET", path: "/api/v1/namespaces/team/configmaps",
		want: Result{Decision: DecisionNoOpinion, Revision: policyRevision}, wantErr: true, code: 503},
}

// backend is one way of holding the same policy.
type backend struct {
	name       string
	authorizer Authorizer
	policy     *testPolicy
}

// backends returns the policy chained behind SystemMasters, in process and
// behind the webhook.
func backends(t *testing.T) []backend {
	t.Helper()
	localPolicy, remotePolicy := &testPolicy{}, &testPolicy{}
	local := mustChain(t, SystemMasters(), localPolicy)
	srv := httptest.NewServer(NewSubjectAccessReviewHandler(mustChain(t, SystemMasters(), remotePolicy)))
	t.Cleanup(srv.Close)
	remote, err := NewWebhookClient(WebhookConfig{URL: srv.URL + SubjectAccessReviewPath, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return []backend{{"local", local, localPolicy}, {"remote", remote, remotePolicy}}
}

func mustChain(t *testing.T, as ...Authorizer) Authorizer {
	t.Helper()
	a, err := Chain(as...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func (c conformanceCase) attributes() Attributes {
	return FromRequestInfo(c.user, requestinfo.Parse(c.method, c.path, ""))
}

func TestConformanceAuthorize(t *testing.T) {
	for _, b := range backends(t) {
		for _, c := range conformanceCases {
			t.Run(b.name+"/"+c.name, func(t *testing.T) {
				attrs := c.attributes()
				got, err := b.authorizer.Authorize(context.Background(), attrs)
				if (err != nil) != c.wantErr {
					t.Fatalf("error %v, want error: %v", err, c.wantErr)
				}
				if got != c.want {
					t.Errorf("result %+v, want %+v", got, c.want)
				}
				if c.user.Username != root.Username {
					if seen := b.policy.lastSeen(); !reflect.DeepEqual(seen, attrs) {
						t.Errorf("policy saw %+v, want %+v", seen, attrs)
					}
				}
			})
		}
	}
}

func TestConformanceMiddleware(t *testing.T) {
	for _, b := range backends(t) {
		srv := newProtectedServer(t, b.authorizer)
		for _, c := range conformanceCases {
			t.Run(b.name+"/"+c.name, func(t *testing.T) {
				code, status, header := doAs(t, srv, c.user, c.method, c.path)
				if code != c.code {
					t.Fatalf("code %d, want %d (%+v)", code, c.code, status)
				}
				switch code {
				case http.StatusForbidden:
					if status.Message != c.message || status.Reason != "Forbidden" {
						t.Errorf("403 %q (%s), want %q", status.Message, status.Reason, c.message)
					}
				case http.StatusServiceUnavailable:
					if header.Get("Retry-After") == "" || strings.Contains(status.Message, "unreachable") {
						t.Errorf("503 without Retry-After or with internals: %+v", status)
					}
				}
			})
		}
	}
}
