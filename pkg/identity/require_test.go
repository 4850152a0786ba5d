package identity

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"reflect"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/request"
)

// seen is what the handler behind Require observed.
type seen struct {
	user    authenticationv1.UserInfo
	ok      bool
	headers http.Header
}

// backend serves Require(v) in front of a handler that records what it
// sees, on 127.0.0.1:0.
func backend(t *testing.T, v *Verifier) (*httptest.Server, chan seen) {
	t.Helper()
	got := make(chan seen, 1)
	h := Require(v)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, ok := request.UserFrom(r.Context())
		got <- seen{user: u, ok: ok, headers: r.Header.Clone()}
	}))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, got
}

var client = &http.Client{Timeout: 10 * time.Second}

func do(t *testing.T, r *http.Request) *http.Response {
	t.Helper()
	resp, err := client.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func newRequest(t *testing.T, method, url string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func expectUnauthorized(t *testing.T, resp *http.Response) {
	t.Helper()
	var s metav1.Status
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusUnauthorized || s.Kind != "Status" || s.Code != 401 || s.Reason != metav1.StatusReasonUnauthorized {
		t.Fatalf("got %d %+v, want 401 Status Unauthorized", resp.StatusCode, s)
	}
}

func TestRequireRejects(t *testing.T) {
	key := newECKey(t)
	s := newSigner(t, key, testIssuer)
	srv, got := backend(t, newVerifier(t, t0, key.Public()))
	path := "/api/v1/namespaces/default/pods"

	cases := map[string]func(r *http.Request){
		"no header": func(*http.Request) {},
		"forged X-Remote-User": func(r *http.Request) {
			r.Header.Set("X-Remote-User", "admin")
			r.Header.Set("X-Remote-Group", "system:masters")
		},
		"forged assertion": func(r *http.Request) { r.Header.Set(Header, "eyJhbGciOiJub25lIn0.e30.") },
		"two assertions": func(r *http.Request) {
			if err := s.SetHeader(r, alice, testAudience); err != nil {
				t.Fatal(err)
			}
			r.Header.Add(Header, r.Header.Get(Header))
		},
		"assertion for another path": func(r *http.Request) {
			r.Header.Set(Header, sign(t, s, testAudience, httpRequest("GET", "/api/v1/namespaces/default/secrets")))
		},
	}
	for name, prepare := range cases {
		t.Run(name, func(t *testing.T) {
			r := newRequest(t, "GET", srv.URL+path)
			prepare(r)
			expectUnauthorized(t, do(t, r))
			select {
			case <-got:
				t.Fatal("handler ran")
			default:
			}
		})
	}
}

func TestRequireAccepts(t *testing.T) {
	key := newEdKey(t)
	s := newSigner(t, key, testIssuer)
	srv, got := backend(t, newVerifier(t, t0, key.Public()))

	// An escaped slash and a query, to check that both ends of the wire
	// compute the same request binding.
	r := newRequest(t, "DELETE", srv.URL+"/api/v1/namespaces/a%2Fb/pods/p?dryRun=All&gracePeriodSeconds=0")
	r.Header.Set("X-Remote-User", "admin")
	if err := s.SetHeader(r, alice, testAudience); err != nil {
		t.Fatal(err)
	}
	if resp := do(t, r); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	checkSeen(t, <-got)
}

func checkSeen(t *testing.T, s seen) {
	t.Helper()
	if !s.ok || !reflect.DeepEqual(s.user, alice) {
		t.Errorf("handler saw user %+v (%v), want %+v", s.user, s.ok, alice)
	}
	for name := range s.headers {
		if c := http.CanonicalHeaderKey(name); c == Header || c == "X-Remote-User" || c == "Impersonate-User" {
			t.Errorf("handler saw identity header %s", name)
		}
	}
}

// TestThroughReverseProxy runs the aggregator's side as it will be: a
// reverse proxy that signs the outgoing request. The client forges identity
// headers; the backend must see only the signed user. In Director mode a
// proxy whose Director parsed the form re-encodes the query after Director
// (and so after signing) when it has semicolons: the binding must survive.
func TestThroughReverseProxy(t *testing.T) {
	key := newECKey(t)
	s := newSigner(t, key, testIssuer)
	srv, got := backend(t, newVerifier(t, t0, key.Public()))
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxies := map[string]*httputil.ReverseProxy{
		"Rewrite": {Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			if err := s.SetHeader(pr.Out, alice, testAudience); err != nil {
				t.Error(err)
			}
		}},
		"Director": {Director: func(r *http.Request) {
			if err := r.ParseForm(); err == nil {
				t.Error("ParseForm accepted a semicolon")
			}
			r.URL.Scheme, r.URL.Host = target.Scheme, target.Host
			if err := s.SetHeader(r, alice, testAudience); err != nil {
				t.Error(err)
			}
		}},
	}
	for name, proxy := range proxies {
		t.Run(name, func(t *testing.T) {
			front := httptest.NewServer(proxy)
			defer front.Close()
			r := newRequest(t, "GET", front.URL+"/api/v1/pods?labelSelector=a%3Db&b=1;c=2&watch=1")
			r.Header.Set("X-Remote-User", "admin")
			r.Header.Set("Impersonate-User", "admin")
			r.Header.Set(Header, "forged")
			if resp := do(t, r); resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			checkSeen(t, <-got)
		})
	}
}
