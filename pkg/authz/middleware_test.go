package authz

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// testUserHeader carries the test's caller, standing in for authentication.
const testUserHeader = "X-Test-User"

// withHeaderUser puts the user testUserHeader names in the request's
// context, as authentication would.
func withHeaderUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var u authenticationv1.UserInfo
		if v := r.Header.Get(testUserHeader); v != "" && json.Unmarshal([]byte(v), &u) == nil {
			r = r.WithContext(request.WithUser(r.Context(), u))
		}
		next.ServeHTTP(w, r)
	})
}

// newProtectedServer serves "ok" behind WithAuthorization(a).
func newProtectedServer(t *testing.T, a Authorizer) *httptest.Server {
	t.Helper()
	mw, err := WithAuthorization(a, MiddlewareConfig{})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", withHeaderUser(mw(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}))))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// doAs sends a request as user and returns the code, the Status body of an
// error, and the headers.
func doAs(t *testing.T, srv *httptest.Server, user authenticationv1.UserInfo, method, path string) (int, metav1.Status, http.Header) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := json.Marshal(user)
	req.Header.Set(testUserHeader, string(u))
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var status metav1.Status
	if resp.StatusCode != http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(&status); err != nil {
			t.Fatalf("%d body is not a Status: %v", resp.StatusCode, err)
		}
	}
	return resp.StatusCode, status, resp.Header
}

func TestForbiddenMessages(t *testing.T) {
	bob := authenticationv1.UserInfo{Username: "bob"}
	cases := []struct {
		name   string
		attrs  Attributes
		reason string
		want   string
	}{
		{"namespaced, named", Attributes{User: bob, ResourceRequest: true, Verb: "get", Namespace: "ns", Resource: "configmaps", Name: "x"}, "",
			`configmaps "x" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "ns"`},
		{"namespaced collection, group", Attributes{User: bob, ResourceRequest: true, Verb: "list", Namespace: "ns", APIGroup: "apps", Resource: "deployments"}, "",
			`deployments.apps is forbidden: User "bob" cannot list resource "deployments" in API group "apps" in the namespace "ns"`},
		{"cluster scope", Attributes{User: bob, ResourceRequest: true, Verb: "delete", Resource: "nodes", Name: "n1"}, "",
			`nodes "n1" is forbidden: User "bob" cannot delete resource "nodes" in API group "" at the cluster scope`},
		{"subresource", Attributes{User: bob, ResourceRequest: true, Verb: "update", Namespace: "ns", APIGroup: "apps", Resource: "deployments", Subresource: "scale", Name: "d"}, "",
			`deployments.apps "d" is forbidden: User "bob" cannot update resource "deployments/scale" in API group "apps" in the namespace "ns"`},
		{"non-resource", Attributes{User: bob, Verb: "get", Path: "/metrics"}, "",
			`forbidden: User "bob" cannot get path "/metrics"`},
		{"reason", Attributes{User: bob, ResourceRequest: true, Verb: "get", Namespace: "ns", Resource: "secrets", Name: "s"}, "RBAC: no rule",
			`secrets "s" is forbidden: User "bob" cannot get resource "secrets" in API group "" in the namespace "ns": RBAC: no rule`},
		{"markup escaped", Attributes{User: authenticationv1.UserInfo{Username: "<b>"}, Verb: "get", Path: "/a&b"}, "",
			`forbidden: User "&lt;b&gt;" cannot get path "/a&amp;b"`},
		{"anonymous", Attributes{Verb: "get", Path: "/version"}, "",
			`forbidden: User "" cannot get path "/version"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Forbidden(c.attrs, c.reason)
			if got := err.ErrStatus.Message; got != c.want {
				t.Errorf("message\n got %s\nwant %s", got, c.want)
			}
			if err.ErrStatus.Code != http.StatusForbidden || err.ErrStatus.Reason != metav1.StatusReasonForbidden {
				t.Errorf("status %+v", err.ErrStatus)
			}
		})
	}
}

// TestFailClosed checks that a webhook that is down or too slow yields 503
// with Retry-After, never the protected handler.
func TestFailClosed(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()

	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(slow.Close)
	t.Cleanup(func() { close(release) })

	for name, url := range map[string]string{"down": downURL, "slow": slow.URL} {
		t.Run(name, func(t *testing.T) {
			client, err := NewWebhookClient(WebhookConfig{URL: url + SubjectAccessReviewPath, Timeout: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			srv := newProtectedServer(t, client)
			code, status, header := doAs(t, srv, alice, "GET", "/api/v1/namespaces/team/configmaps/x")
			if code != http.StatusServiceUnavailable || status.Reason != metav1.StatusReasonServiceUnavailable {
				t.Fatalf("code %d %+v, want 503 ServiceUnavailable", code, status)
			}
			if header.Get("Retry-After") != "1" {
				t.Errorf("Retry-After %q, want 1", header.Get("Retry-After"))
			}
		})
	}
}

func TestMiddlewareAllowWithErrorPasses(t *testing.T) {
	// As in kube: an engine may find an allowing rule while failing on
	// another part of its policy.
	a := AuthorizerFunc(func(context.Context, Attributes) (Result, error) {
		return Result{Decision: DecisionAllow}, errors.New("partial")
	})
	srv := newProtectedServer(t, a)
	if code, _, _ := doAs(t, srv, alice, "GET", "/healthz"); code != http.StatusOK {
		t.Fatalf("code %d, want 200", code)
	}
}

func TestMiddlewareDenyWithErrorFailsClosed(t *testing.T) {
	a := AuthorizerFunc(func(context.Context, Attributes) (Result, error) {
		return Result{Decision: DecisionDeny}, errors.New("both allowed and denied")
	})
	srv := newProtectedServer(t, a)
	if code, _, _ := doAs(t, srv, alice, "GET", "/healthz"); code != http.StatusServiceUnavailable {
		t.Fatalf("code %d, want 503", code)
	}
}

func TestMiddlewareRetryAfterRoundsUp(t *testing.T) {
	failing := AuthorizerFunc(func(context.Context, Attributes) (Result, error) {
		return Result{Decision: DecisionNoOpinion}, ErrUnavailable
	})
	mw, err := WithAuthorization(failing, MiddlewareConfig{RetryAfter: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/healthz", nil)
	req = req.WithContext(request.WithUser(req.Context(), authenticationv1.UserInfo{Username: "alice"}))
	mw(http.NotFoundHandler()).ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "2" {
		t.Fatalf("code %d Retry-After %q, want 503 and 2", rec.Code, rec.Header().Get("Retry-After"))
	}
}

func TestMiddlewareWithoutUser(t *testing.T) {
	called := false
	a := AuthorizerFunc(func(context.Context, Attributes) (Result, error) {
		called = true
		return Result{Decision: DecisionAllow}, nil
	})
	mw, err := WithAuthorization(a, MiddlewareConfig{})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	mw(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if rec.Code != http.StatusInternalServerError || called {
		t.Fatalf("code %d, authorizer called %v; want 500 without asking", rec.Code, called)
	}
}

func TestMiddlewareUsesContextRequestInfo(t *testing.T) {
	var seen Attributes
	a := AuthorizerFunc(func(_ context.Context, attrs Attributes) (Result, error) {
		seen = attrs
		return Result{Decision: DecisionDeny}, nil
	})
	mw, err := WithAuthorization(a, MiddlewareConfig{})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/api/v1/namespaces/ns/pods/p", nil)
	// An earlier middleware read the request differently (e.g. after
	// stripping a prefix): its reading wins.
	info := requestinfo.Parse("GET", "/api/v1/namespaces/other/secrets/s", "")
	ctx := request.WithUser(req.Context(), authenticationv1.UserInfo{Username: "alice"})
	req = req.WithContext(request.WithInfo(ctx, info))
	rec := httptest.NewRecorder()
	mw(http.NotFoundHandler()).ServeHTTP(rec, req)
	if seen.Resource != "secrets" || seen.Namespace != "other" {
		t.Fatalf("authorizer saw %+v, want the context's request info", seen)
	}
}

func TestWithAuthorizationConfig(t *testing.T) {
	for name, c := range map[string]struct {
		a   Authorizer
		cfg MiddlewareConfig
	}{
		"nil authorizer":      {nil, MiddlewareConfig{}},
		"negative RetryAfter": {AlwaysAllow(), MiddlewareConfig{RetryAfter: -time.Second}},
	} {
		if _, err := WithAuthorization(c.a, c.cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: error %v, want ErrInvalidConfig", name, err)
		}
	}
}
