package authz

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/revision/revisiontest"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/revision"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/authz/internal/rbac"
)

// TestPolicySyncPublishes: every policy loaded is pushed with its revision,
// the deletion of a binding included.
func TestPolicySyncPublishes(t *testing.T) {
	client := fake.NewClientset()
	engine, err := rbac.New(rbac.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := newPolicySync(engine, informers.NewSharedInformerFactory(client, 0), time.Millisecond,
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	feed := revision.NewFeed()
	s.onLoad = feed.Set
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s.start(ctx, client)

	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "bob-view", Namespace: "default", ResourceVersion: "42"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "bob"}},
	}
	if _, err := client.RbacV1().RoleBindings("default").Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForRevision(t, feed, 42)
}

// waitForRevision waits, on the feed's own channel, until it reaches want.
func waitForRevision(t *testing.T, feed *revision.Feed, want int64) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		rev, changed := feed.Current()
		if rev >= want {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("revision %d, want %d within 10s", rev, want)
		}
	}
}

// TestServerRevisionsRequireAssertion: the stream is the aggregator's only,
// and Close ends it rather than waiting for it.
func TestServerRevisionsRequireAssertion(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Start(context.Background(), Config{
		Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, AuthorizationModes: []string{authz.ModeAlwaysAllow},
		IdentityKeys: []crypto.PublicKey{pub},
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(srv.URL() + revision.Path)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("stream without assertion = %d, want 401", resp.StatusCode)
	}
	signer, err := identity.NewSigner(identity.SignerConfig{Key: priv, Issuer: DefaultIdentityIssuer})
	if err != nil {
		t.Fatal(err)
	}
	signed := &http.Client{Transport: signer.Transport(http.DefaultTransport, authenticationv1.UserInfo{Username: "agg"}, Audience)}
	resp, err = signed.Get(srv.URL() + revision.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := revisiontest.Lines(resp.Body)
	if rev, ok := revisiontest.Next(t, lines); !ok || rev != 0 {
		t.Fatalf("first line = %d %v, want revision 0 (no RBAC mode)", rev, ok)
	}
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	if _, ok := revisiontest.Next(t, lines); ok {
		t.Fatal("stream still open after Close")
	}
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited on the stream")
	}
}
