package serviceaccount

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/authn"
)

// tokenServer serves a TokenRequest handler for testSA, signing with a
// P-256 key and capping lifetimes at two hours.
// Each request's Content-Type is sent to contentTypes when it is not nil.
func tokenServer(t *testing.T, lookup Lookup, contentTypes ...chan<- string) *httptest.Server {
	t.Helper()
	i := newTestIssuer(t, p256Key(), func(c *IssuerConfig) { c.MaxTTL = 2 * time.Hour })
	h, err := NewTokenRequestHandler(TokenRequestHandlerConfig{Issuer: i, Lookup: lookup, MaxBodyBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, ch := range contentTypes {
			ch <- r.Header.Get("Content-Type")
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// clientset talks to srv the way kubectl does (protobuf bodies).
func clientset(t *testing.T, srv *httptest.Server) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestTokenRequestThroughClientGo(t *testing.T) {
	contentTypes := make(chan string, 3)
	srv := tokenServer(t, newAccounts(testSA), contentTypes)
	cs := clientset(t, srv)
	ctx := context.Background()
	hours := int64(10 * 3600)
	out, err := cs.CoreV1().ServiceAccounts("team-a").CreateToken(ctx, "builder",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &hours}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("CreateToken: %v", err)
	}
	// kubectl create token sends protobuf, so that is what must work.
	if ct := <-contentTypes; ct != "application/vnd.kubernetes.protobuf" {
		t.Errorf("client-go sent %q", ct)
	}
	if out.Name != "builder" || out.Namespace != "team-a" || !slices.Equal(out.Spec.Audiences, []string{testIssuer}) ||
		*out.Spec.ExpirationSeconds != 7200 || !out.Status.ExpirationTimestamp.Time.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("response %+v", out)
	}
	now := t0
	a := newTestAuthenticator(t, newAccounts(testSA), &now, p256Key().Public())
	if resp, ok, err := a.AuthenticateToken(ctx, out.Status.Token); !ok || err != nil || resp.User.UID != "uid-1" {
		t.Errorf("issued token: %+v, %v, %v", resp, ok, err)
	}

	_, err = cs.CoreV1().ServiceAccounts("team-a").CreateToken(ctx, "absent", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("absent account: %v, want NotFound", err)
	}
	short := int64(599)
	_, err = cs.CoreV1().ServiceAccounts("team-a").CreateToken(ctx, "builder",
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &short}}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Errorf("599 seconds: %v, want Invalid", err)
	}
}

func TestTokenRequestHandler(t *testing.T) {
	lookup := newAccounts(testSA)
	srv := tokenServer(t, lookup)
	const path = "/api/v1/namespaces/team-a/serviceaccounts/builder/token"
	cases := []struct {
		name        string
		method      string
		path        string
		contentType string
		body        string
		code        int
		reason      metav1.StatusReason
		field       string
	}{
		{name: "created, kind optional", body: `{"spec":{"audiences":["vault"]}}`, code: 201},
		{name: "created, full object", body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","metadata":{"namespace":"team-a"},"spec":{}}`, code: 201},
		{name: "created, YAML", contentType: "application/yaml", body: "spec:\n  expirationSeconds: 600\n", code: 201},
		{name: "no such account", path: "/api/v1/namespaces/team-a/serviceaccounts/absent/token", body: `{}`, code: 404, reason: metav1.StatusReasonNotFound},
		{name: "no such account in that namespace", path: "/api/v1/namespaces/team-b/serviceaccounts/builder/token", body: `{}`, code: 404, reason: metav1.StatusReasonNotFound},
		{name: "too short", body: `{"spec":{"expirationSeconds":599}}`, code: 422, reason: metav1.StatusReasonInvalid, field: "spec.expirationSeconds"},
		{name: "empty audience", body: `{"spec":{"audiences":[""]}}`, code: 422, reason: metav1.StatusReasonInvalid, field: "spec.audiences[0]"},
		{name: "repeated audience", body: `{"spec":{"audiences":["a","a"]}}`, code: 422, reason: metav1.StatusReasonInvalid, field: "spec.audiences[1]"},
		{name: "malformed JSON", body: `{"spec":`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "wrong type of field", body: `{"spec":{"expirationSeconds":"long"}}`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "another kind", body: `{"apiVersion":"v1","kind":"Pod"}`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "another version", body: `{"apiVersion":"authentication.k8s.io/v1beta1","kind":"TokenRequest"}`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "another namespace in the body", body: `{"metadata":{"namespace":"team-b"}}`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "bound to a pod", body: `{"spec":{"boundObjectRef":{"kind":"Pod","apiVersion":"v1","name":"p"}}}`, code: 400, reason: metav1.StatusReasonBadRequest},
		{name: "too large", body: `{"spec":{"audiences":["` + strings.Repeat("a", 5000) + `"]}}`, code: 413, reason: metav1.StatusReasonRequestEntityTooLarge},
		{name: "unknown media type", contentType: "text/plain", body: `{}`, code: 415, reason: metav1.StatusReasonUnsupportedMediaType},
		{name: "GET", method: http.MethodGet, code: 405, reason: metav1.StatusReasonMethodNotAllowed},
		{name: "another subresource", path: "/api/v1/namespaces/team-a/serviceaccounts/builder/status", body: `{}`, code: 404, reason: metav1.StatusReasonNotFound},
		{name: "the account itself", path: "/api/v1/namespaces/team-a/serviceaccounts/builder", body: `{}`, code: 404, reason: metav1.StatusReasonNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			method, p, ct := c.method, c.path, c.contentType
			if method == "" {
				method = http.MethodPost
			}
			if p == "" {
				p = path
			}
			if ct == "" {
				ct = "application/json"
			}
			req, err := http.NewRequest(method, srv.URL+p, strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", ct)
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != c.code {
				t.Fatalf("code %d, want %d: %s", res.StatusCode, c.code, body)
			}
			if c.code == 201 {
				var tr authenticationv1.TokenRequest
				if err := json.Unmarshal(body, &tr); err != nil || tr.Kind != "TokenRequest" || tr.Status.Token == "" {
					t.Errorf("body %s (%v)", body, err)
				}
				return
			}
			var s metav1.Status
			if err := json.Unmarshal(body, &s); err != nil || s.Kind != "Status" || s.Reason != c.reason || int(s.Code) != c.code {
				t.Fatalf("status %s (%v), want reason %s", body, err, c.reason)
			}
			if c.field != "" && (s.Details == nil || len(s.Details.Causes) == 0 || s.Details.Causes[0].Field != c.field) {
				t.Errorf("causes %+v, want field %s", s.Details, c.field)
			}
		})
	}
}

func TestTokenRequestLookupFailureIsRetryable(t *testing.T) {
	lookup := newAccounts(testSA)
	lookup.fail(errors.New("registry unreachable"))
	srv := tokenServer(t, lookup)
	res, err := srv.Client().Post(srv.URL+"/api/v1/namespaces/team-a/serviceaccounts/builder/token", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Errorf("code %d, Retry-After %q; want 503 with Retry-After", res.StatusCode, res.Header.Get("Retry-After"))
	}
}

func TestNewTokenRequestHandlerValidates(t *testing.T) {
	i := newTestIssuer(t, p256Key())
	for _, cfg := range []TokenRequestHandlerConfig{{Lookup: newAccounts()}, {Issuer: i}, {Issuer: i, Lookup: newAccounts(), MaxBodyBytes: -1}} {
		if _, err := NewTokenRequestHandler(cfg); !errors.Is(err, authn.ErrInvalidConfig) {
			t.Errorf("%+v: %v, want ErrInvalidConfig", cfg, err)
		}
	}
}
