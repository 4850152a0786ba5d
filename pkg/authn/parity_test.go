package authn

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/request"
)

// parityCase is one request and what the aggregator's middleware must make
// of it, whichever Authenticator it holds.
type parityCase struct {
	name      string
	header    string // Authorization; "" sends none
	anonymous bool
	audiences []string // Options.APIAudiences
	wantCode  int
	wantUser  *authenticationv1.UserInfo
}

func user(name, uid string, groups ...string) *authenticationv1.UserInfo {
	return &authenticationv1.UserInfo{Username: name, UID: uid, Groups: groups}
}

var parityCases = []parityCase{
	{name: "valid static token", header: "Bearer alice-token", wantCode: 200,
		wantUser: user("alice", "uid-alice", AllAuthenticated)},
	{name: "token with groups", header: "Bearer bob-token", wantCode: 200,
		wantUser: user("bob", "uid-bob", "dev", "ops", AllAuthenticated)},
	{name: "admin token", header: "Bearer admin-token", wantCode: 200,
		wantUser: user("admin", "uid-admin", "system:masters", AllAuthenticated)},
	{name: "scheme is case-insensitive", header: "bearer alice-token", wantCode: 200,
		wantUser: user("alice", "uid-alice", AllAuthenticated)},
	{name: "unknown token", header: "Bearer nobody-token", wantCode: 401},
	{name: "empty token", header: "Bearer ", wantCode: 401},
	{name: "empty token is not anonymous", header: "Bearer ", anonymous: true, wantCode: 401},
	{name: "invalid token is not anonymous", header: "Bearer nobody-token", anonymous: true, wantCode: 401},
	{name: "basic auth", header: "Basic YWxpY2U6cHc=", wantCode: 401},
	{name: "anonymous", anonymous: true, wantCode: 200,
		wantUser: user(AnonymousUser, "", AllUnauthenticated)},
	{name: "anonymous disabled", wantCode: 401},
	{name: "authenticator cannot decide", header: "Bearer flaky-token", wantCode: 503},
	{name: "static token is audience-agnostic", header: "Bearer alice-token", audiences: []string{"api"}, wantCode: 200,
		wantUser: user("alice", "uid-alice", AllAuthenticated)},
	{name: "audience-aware token for us", header: "Bearer aud-token", audiences: []string{"api"}, wantCode: 200,
		wantUser: user("carol", "uid-carol", AllAuthenticated)},
	{name: "audience-aware token for someone else", header: "Bearer aud-token", audiences: []string{"other"}, wantCode: 401},
}

// TestParity runs the one table against the local authenticator and against
// a WebhookClient talking to NewTokenReviewHandler serving it.
func TestParity(t *testing.T) {
	local := Union(newTestTokenFile(t, testTokens), audienceAware, flaky)
	impls := []struct {
		name string
		a    Authenticator
	}{
		{"local", local},
		{"remote", newRemote(t, local)},
	}
	for _, impl := range impls {
		for _, c := range parityCases {
			t.Run(impl.name+"/"+c.name, func(t *testing.T) {
				checkMiddleware(t, impl.a, c)
				checkAuthenticator(t, impl.a, c)
			})
		}
	}
}

// checkMiddleware sends c's request through WithAuthentication.
func checkMiddleware(t *testing.T, a Authenticator, c parityCase) {
	t.Helper()
	var seen authenticationv1.UserInfo
	var authenticated bool
	var sawAuthorization bool
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1/pods", func(w http.ResponseWriter, r *http.Request) {
		seen, authenticated = request.UserFrom(r.Context())
		_, sawAuthorization = r.Header["Authorization"]
	})
	h := WithAuthentication(a, Options{Anonymous: c.anonymous, APIAudiences: c.audiences})(mux)
	req := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
	if c.header != "" {
		req.Header.Set("Authorization", c.header)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)

	if rec.Code != c.wantCode {
		t.Fatalf("code %d, want %d; body %s", rec.Code, c.wantCode, rec.Body)
	}
	switch c.wantCode {
	case 200:
		if !authenticated || !sameUser(seen, *c.wantUser) {
			t.Errorf("downstream user %+v, want %+v", seen, c.wantUser)
		}
		if sawAuthorization {
			t.Error("Authorization header reached the next handler")
		}
	case 401:
		if rec.Header().Get("WWW-Authenticate") != "Bearer" {
			t.Errorf("WWW-Authenticate %q", rec.Header().Get("WWW-Authenticate"))
		}
		checkStatus(t, rec, "Unauthorized")
	case 503:
		if rec.Header().Get("Retry-After") == "" {
			t.Error("503 without Retry-After")
		}
		checkStatus(t, rec, "ServiceUnavailable")
	}
}

// checkAuthenticator asks a directly about c's bearer token, if it has a
// well-formed one: recognised exactly when the middleware let it through,
// an error exactly when the middleware answered 503.
func checkAuthenticator(t *testing.T, a Authenticator, c parityCase) {
	t.Helper()
	h := http.Header{}
	if c.header != "" {
		h.Set("Authorization", c.header)
	}
	token, present, err := bearerToken(h)
	if !present || err != nil {
		return
	}
	ctx := context.Background()
	if len(c.audiences) > 0 {
		ctx = WithAudiences(ctx, c.audiences)
	}
	resp, ok, err := a.AuthenticateToken(ctx, token)
	if (err != nil) != (c.wantCode == 503) {
		t.Fatalf("AuthenticateToken error %v, want error: %v", err, c.wantCode == 503)
	}
	if ok != (c.wantCode == 200) {
		t.Fatalf("AuthenticateToken recognised %v, want %v", ok, c.wantCode == 200)
	}
	if ok && !sameUser(withAuthenticatedGroup(resp.User), *c.wantUser) {
		t.Errorf("user %+v, want %+v", resp.User, c.wantUser)
	}
}

func sameUser(a, b authenticationv1.UserInfo) bool {
	return a.Username == b.Username && a.UID == b.UID && slices.Equal(a.Groups, b.Groups)
}

// checkStatus checks that the body is a metav1.Status with reason.
func checkStatus(t *testing.T, rec *httptest.ResponseRecorder, reason string) {
	t.Helper()
	var s struct{ Kind, Reason string }
	if err := json.Unmarshal(rec.Body.Bytes(), &s); err != nil || s.Kind != "Status" || s.Reason != reason {
		t.Errorf("body %s is not a Status with reason %s", rec.Body, reason)
	}
}
