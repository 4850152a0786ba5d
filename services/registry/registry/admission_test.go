package registry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/request"
)

// signedAdmission is an admission service that accepts only reviews
// carrying an assertion its current verifier accepts, as the admission
// service checks the registry's key, and records who sent each review.
type signedAdmission struct {
	srv      *httptest.Server
	verifier atomic.Pointer[identity.Verifier]
	mu       sync.Mutex
	callers  []string
}

func newSignedAdmission(t *testing.T, pubFile string) *signedAdmission {
	s := &signedAdmission{}
	s.trust(t, pubFile)
	admit := admission.AdmitterFunc(func(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
		u, _ := request.UserFrom(ctx)
		s.mu.Lock()
		s.callers = append(s.callers, u.Username)
		s.mu.Unlock()
		return admission.Allow(), nil
	})
	mux := http.NewServeMux()
	mux.Handle(admission.MutatingPath, admission.NewAdmissionReviewHandler(admission.Mutating(admit)))
	mux.Handle(admission.ValidatingPath, admission.NewAdmissionReviewHandler(admit))
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		identity.Require(s.verifier.Load())(mux).ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// trust makes the service accept the key in pubFile, and only it.
func (s *signedAdmission) trust(t *testing.T, pubFile string) {
	t.Helper()
	keys, err := identity.LoadPublicKeys(pubFile)
	if err != nil {
		t.Fatal(err)
	}
	v, err := identity.NewVerifier(identity.VerifierConfig{Keys: keys, Issuer: admission.RegistryIssuer, Audience: admission.Audience})
	if err != nil {
		t.Fatal(err)
	}
	s.verifier.Store(v)
}

func (s *signedAdmission) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.callers...)
}

func keyPair(t *testing.T, dir, name string) (priv, pub string) {
	t.Helper()
	priv = filepath.Join(dir, name)
	if err := identity.GenerateKeyFiles(priv, priv+".pub"); err != nil {
		t.Fatal(err)
	}
	return priv, priv + ".pub"
}

// TestRemoteAdmissionSignsReviews: the registry's reviews carry its own
// signed identity, which the admission service checks; when the service
// does not accept the key it answers 401, and the registry 503.
func TestRemoteAdmissionSignsReviews(t *testing.T) {
	dir := t.TempDir()
	priv, pub := keyPair(t, dir, "registry.key")
	_, otherPub := keyPair(t, dir, "other.key")
	svc := newSignedAdmission(t, pub)
	// The bootstrap's writes through admission are the first proof that
	// it accepted the registry's signed reviews.
	srv, c := startWithAdmission(t, svc.srv.URL+"/", priv)
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"}}
	if _, err := c.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create through signed admission: %v", err)
	}
	callers := svc.seen()
	if len(callers) == 0 {
		t.Fatal("admission was never asked")
	}
	for _, u := range callers {
		if u != admission.RegistryUser {
			t.Fatalf("reviews came from %q, want %q", callers, admission.RegistryUser)
		}
	}

	svc.trust(t, otherPub)
	// Plain HTTP: client-go would retry a 503 with Retry-After.
	resp, err := http.Post(srv.URL()+"/api/v1/namespaces/default/configmaps", "application/json",
		strings.NewReader(`{"metadata":{"name":"d"}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("create when admission refuses the registry's key: %d Retry-After %q, want 503 with Retry-After",
			resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if _, err := c.CoreV1().ConfigMaps("default").Get(ctx, "d", metav1.GetOptions{}); err == nil {
		t.Error("the refused create was stored")
	}
}

// TestRemoteAdmissionConfig refuses a config without a URL or key.
func TestRemoteAdmissionConfig(t *testing.T) {
	priv, _ := keyPair(t, t.TempDir(), "k")
	key, err := identity.LoadPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []RemoteAdmissionConfig{{Key: key}, {URL: "http://127.0.0.1:1"}, {URL: "ftp://x", Key: key}} {
		if _, err := RemoteAdmission(cfg); err == nil {
			t.Errorf("RemoteAdmission(%+v) accepted", cfg)
		}
	}
}
