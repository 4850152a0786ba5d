package stagecaller

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/observe"
	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/testpki"
)

// fakeAPI answers TokenReviews (one good token, "kube-token", for user
// kube) and SubjectAccessReviews (allowing the users in allowed), and
// remembers the reviews of access it was asked.
type fakeAPI struct {
	mu      sync.Mutex
	allowed map[string]bool
	asked   []authorizationv1.SubjectAccessReviewSpec
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch {
	case strings.HasSuffix(r.URL.Path, "/tokenreviews"):
		var tr authenticationv1.TokenReview
		_ = json.NewDecoder(r.Body).Decode(&tr)
		if tr.Spec.Token == "kube-token" {
			tr.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: "kube", Groups: []string{"system:authenticated"}}}
		}
		_ = json.NewEncoder(w).Encode(&tr)
	case strings.HasSuffix(r.URL.Path, "/subjectaccessreviews"):
		var sar authorizationv1.SubjectAccessReview
		_ = json.NewDecoder(r.Body).Decode(&sar)
		f.mu.Lock()
		f.asked = append(f.asked, sar.Spec)
		sar.Status.Allowed = f.allowed[sar.Spec.User]
		f.mu.Unlock()
		_ = json.NewEncoder(w).Encode(&sar)
	default:
		http.NotFound(w, r)
	}
}

// internalMarker stands for identity.Require: it answers 401 and says so.
func internalMarker(http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Path", "internal")
		w.WriteHeader(http.StatusUnauthorized)
	})
}

// stage serves Accept over TLS (asking for client certificates of ca)
// and plain HTTP, the handler behind it writing the caller it was given.
func stage(t *testing.T, api *fakeAPI, ca *x509.CertPool) (tlsSrv, plain *httptest.Server) {
	t.Helper()
	apiSrv := httptest.NewServer(api)
	t.Cleanup(apiSrv.Close)
	outside, err := outsideOf(observe.Delegate{URL: apiSrv.URL, Client: apiSrv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	h := Accept(internalMarker, outside)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, _ := request.UserFrom(r.Context())
		w.Header().Set("X-User", u.Username)
		w.Header().Set("X-Authorization", r.Header.Get("Authorization"))
	}))
	tlsSrv = httptest.NewUnstartedServer(h)
	tlsSrv.TLS = &tls.Config{ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: ca}
	tlsSrv.StartTLS()
	t.Cleanup(tlsSrv.Close)
	plain = httptest.NewServer(h)
	t.Cleanup(plain.Close)
	return tlsSrv, plain
}

func TestAccept(t *testing.T) {
	ca := testpki.New(t, "webhook-callers")
	api := &fakeAPI{allowed: map[string]bool{"kube": true, "kube-apiserver": true}}
	tlsSrv, plain := stage(t, api, ca.Pool())
	good := ca.ClientCert(t, "kube-apiserver", "webhook-callers")
	// Another CA of the same name: the client sends its certificate (the
	// server asks for that name), and the handshake must fail on it.
	stranger := testpki.New(t, "webhook-callers").ClientCert(t, "kube-apiserver")
	denied := ca.ClientCert(t, "mallory")

	cases := []struct {
		name     string
		srv      *httptest.Server
		cert     *tls.Certificate
		header   map[string]string
		wantCode int
		wantUser string
		wantPath string
	}{
		{name: "certificate of the client CA, allowed", srv: tlsSrv, cert: &good, wantCode: 200, wantUser: "kube-apiserver"},
		{name: "token the API knows, allowed", srv: tlsSrv, header: map[string]string{"Authorization": "Bearer kube-token"}, wantCode: 200, wantUser: "kube"},
		{name: "token the API does not know", srv: tlsSrv, header: map[string]string{"Authorization": "Bearer nope"}, wantCode: 401},
		{name: "certificate of the client CA, no access", srv: tlsSrv, cert: &denied, wantCode: 403},
		{name: "no credentials: the internal path refuses", srv: tlsSrv, wantCode: 401, wantPath: "internal"},
		{name: "an assertion goes the internal way whatever else", srv: tlsSrv, cert: &good,
			header: map[string]string{identity.Header: "x"}, wantCode: 401, wantPath: "internal"},
		{name: "a token over plain HTTP is never taken", srv: plain, header: map[string]string{"Authorization": "Bearer kube-token"},
			wantCode: 401, wantPath: "internal"},
		{name: "a certificate of another CA fails the handshake", srv: tlsSrv, cert: &stranger, wantCode: -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			client := tc.srv.Client()
			if tc.cert != nil {
				tr := client.Transport.(*http.Transport).Clone()
				tr.TLSClientConfig.Certificates = []tls.Certificate{*tc.cert}
				client = &http.Client{Transport: tr, Timeout: 10 * time.Second}
			}
			req, _ := http.NewRequest(http.MethodPost, tc.srv.URL+"/apis/authentication.k8s.io/v1/tokenreviews", strings.NewReader("{}"))
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			resp, err := client.Do(req)
			if tc.wantCode == -1 {
				if err == nil {
					resp.Body.Close()
					t.Fatalf("got %d, want a failed handshake", resp.StatusCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.wantCode || resp.Header.Get("X-User") != tc.wantUser || resp.Header.Get("X-Path") != tc.wantPath {
				t.Fatalf("got %d user %q path %q, want %d user %q path %q", resp.StatusCode, resp.Header.Get("X-User"),
					resp.Header.Get("X-Path"), tc.wantCode, tc.wantUser, tc.wantPath)
			}
			if resp.Header.Get("X-Authorization") != "" {
				t.Fatal("the caller's token went past the check")
			}
		})
	}
	// The access asked about is the request's own: create tokenreviews.
	api.mu.Lock()
	defer api.mu.Unlock()
	for _, spec := range api.asked {
		if a := spec.ResourceAttributes; a == nil || a.Verb != "create" || a.Group != "authentication.k8s.io" || a.Resource != "tokenreviews" {
			t.Fatalf("asked about %+v, want create tokenreviews.authentication.k8s.io", spec)
		}
	}
}
