package authn

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/serve"
)

// testServer starts the service on a fake API holding ServiceAccount
// default/robot, and returns it with a signer standing in for the
// aggregator.
func testServer(t *testing.T) (*Server, *identity.Signer, *fake.Clientset) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := identity.NewSigner(identity.SignerConfig{Key: priv, Issuer: DefaultIdentityIssuer})
	if err != nil {
		t.Fatal(err)
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	client := fake.NewClientset(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "robot", UID: "uid-robot"}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := Start(ctx, Config{Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, IdentityKeys: []crypto.PublicKey{pub}, ServiceAccountKey: saKey, Client: client})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, signer, client
}

// post sends body to path as the aggregator would, asserting u (no
// assertion when signer is nil).
func post(t *testing.T, s *Server, signer *identity.Signer, u authenticationv1.UserInfo, path string, body any) (int, []byte) {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.URL()+path, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if signer != nil {
		if err := signer.SetHeader(req, u, Audience); err != nil {
			t.Fatal(err)
		}
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (int, []byte) {
	t.Helper()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

// TestTokenLifecycle issues a token for robot, reviews it, deletes robot
// and sees the token stop working as soon as the watch reports it.
func TestTokenLifecycle(t *testing.T) {
	s, signer, client := testServer(t)
	aggregator := authenticationv1.UserInfo{Username: "system:kubesplit:aggregator"}
	waitReady(t, s)

	code, body := post(t, s, signer, aggregator, "/api/v1/namespaces/default/serviceaccounts/robot/token",
		authenticationv1.TokenRequest{TypeMeta: metav1.TypeMeta{Kind: "TokenRequest", APIVersion: "authentication.k8s.io/v1"}})
	if code != http.StatusCreated {
		t.Fatalf("TokenRequest = %d %s", code, body)
	}
	var tr authenticationv1.TokenRequest
	if err := json.Unmarshal(body, &tr); err != nil || tr.Status.Token == "" {
		t.Fatalf("TokenRequest answer %s: %v", body, err)
	}
	review := func() authenticationv1.TokenReviewStatus {
		code, body := post(t, s, signer, aggregator, "/apis/authentication.k8s.io/v1/tokenreviews", authenticationv1.TokenReview{
			TypeMeta: metav1.TypeMeta{Kind: "TokenReview", APIVersion: "authentication.k8s.io/v1"},
			Spec:     authenticationv1.TokenReviewSpec{Token: tr.Status.Token},
		})
		var out authenticationv1.TokenReview
		if code != http.StatusCreated || json.Unmarshal(body, &out) != nil {
			t.Fatalf("TokenReview = %d %s", code, body)
		}
		return out.Status
	}
	if st := review(); !st.Authenticated || st.User.Username != "system:serviceaccount:default:robot" {
		t.Fatalf("review of a fresh token = %+v", st)
	}
	if err := client.CoreV1().ServiceAccounts("default").Delete(context.Background(), "robot", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for review().Authenticated {
		if time.Now().After(deadline) {
			t.Fatal("token of a deleted account still authenticates after 5s")
		}
	}
}

// TestRequiresAssertion: API paths need the aggregator's assertion; health
// and the issuer's discovery documents do not.
func TestRequiresAssertion(t *testing.T) {
	s, signer, _ := testServer(t)
	if code, body := post(t, s, nil, authenticationv1.UserInfo{}, "/apis/authentication.k8s.io/v1/tokenreviews", authenticationv1.TokenReview{}); code != http.StatusUnauthorized {
		t.Errorf("TokenReview without assertion = %d %s, want 401", code, body)
	}
	for _, path := range []string{"/healthz", "/livez", "/.well-known/openid-configuration", "/openid/v1/jwks"} {
		req, _ := http.NewRequest(http.MethodGet, s.URL()+path, nil)
		if code, body := do(t, req); code != http.StatusOK {
			t.Errorf("GET %s = %d %s, want 200", path, code, body)
		}
	}
	alice := authenticationv1.UserInfo{Username: "alice", Groups: []string{"dev", "system:authenticated"}}
	code, body := post(t, s, signer, alice, SelfSubjectReviewPath, authenticationv1.SelfSubjectReview{
		TypeMeta: metav1.TypeMeta{Kind: "SelfSubjectReview", APIVersion: "authentication.k8s.io/v1"},
	})
	if code != http.StatusCreated || !strings.Contains(string(body), `"username":"alice"`) {
		t.Errorf("SelfSubjectReview = %d %s", code, body)
	}
	req, _ := http.NewRequest(http.MethodGet, s.URL()+"/apis/authentication.k8s.io/v1", nil)
	if err := signer.SetHeader(req, alice, Audience); err != nil {
		t.Fatal(err)
	}
	if code, body := do(t, req); code != http.StatusOK || !strings.Contains(string(body), "tokenreviews") {
		t.Errorf("discovery = %d %s", code, body)
	}
}

// waitReady polls /readyz until the informer has listed.
func waitReady(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodGet, s.URL()+"/readyz", nil)
		if code, _ := do(t, req); code == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("not ready after 10s")
		}
	}
}
