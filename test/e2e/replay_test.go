package e2e

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

const clusterRoleBindingsPath = "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"

// TestReplayedAssertionIsRefused plays someone who reads the traffic
// between the aggregator and the registry: a tap of the test's own sits on
// that hop and keeps the identity assertions of an admin's writes. Each
// write has generateName, so a replay that went through would store one
// more ClusterRoleBinding. An assertion the tap held back (never used) is
// refused with a body of the replayer's own, one the registry already
// accepted is refused as it is, and etcd is unchanged.
func TestReplayedAssertionIsRefused(t *testing.T) {
	dir := t.TempDir()
	privPath, pubPath := filepath.Join(dir, "aggregator.key"), filepath.Join(dir, "aggregator.pub")
	if err := identity.GenerateKeyFiles(privPath, pubPath); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(aggregatorAdminToken+`,admin,uid-admin,"system:masters"`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	reg := framework.StartRegistryWithIdentity(t, pubPath)
	tap := newTap(t, reg.URL)
	agg := framework.StartAggregator(t, "--registry-url", tap.srv.URL, "--identity-key-file", privPath,
		"--token-auth-file", tokens, "--authorization-mode", "AlwaysDeny")
	c := aggregatorClient(t, agg)
	if !polltest.Holds(t, 30*time.Second, func(context.Context) (bool, error) {
		resp, _ := httpGet(t, c, agg.URL+clusterRoleBindingsPath, aggregatorAdminToken)
		return resp.StatusCode == http.StatusOK, nil
	}) {
		t.Fatal("the aggregator never served clusterrolebindings from the registry")
	}

	opsBinding := clusterRoleBinding("ops-", "view", "ops")
	if code, body := adminPost(t, c, agg.URL, opsBinding); code != http.StatusCreated {
		t.Fatalf("the admin's write: %d %s", code, body)
	}
	delivered := tap.last(t)
	tap.holding.Store(true)
	adminPost(t, c, agg.URL, opsBinding) // answered by the tap, never delivered
	held := tap.last(t)
	if held.token == delivered.token {
		t.Error("two writes went out with one assertion")
	}

	prefix := "/registry/rbac.authorization.k8s.io/clusterrolebindings/"
	before := snapshot(t, reg, prefix)
	mallory := clusterRoleBinding("mallory-", "cluster-admin", "mallory")
	for _, tc := range []struct {
		name     string
		captured captured
		body     []byte
		want     int
		says     string
	}{
		{"an unused assertion with another body", held, mallory, http.StatusBadRequest, identity.ErrWrongBody.Error()},
		{"a used assertion as it is", delivered, delivered.body, http.StatusUnauthorized, identity.ErrReplayed.Error()},
		{"a used assertion with another body", delivered, mallory, http.StatusUnauthorized, identity.ErrReplayed.Error()},
	} {
		code, body := replay(t, reg.URL, tc.captured, tc.body)
		if code != tc.want || !strings.Contains(body, `"kind":"Status"`) || !strings.Contains(body, tc.says) {
			t.Errorf("%s: %d %s, want a %d Status saying %q", tc.name, code, body, tc.want, tc.says)
		}
	}
	assertSameSnapshot(t, before, snapshot(t, reg, prefix))
}

// clusterRoleBinding is a ClusterRoleBinding to role for user, named by
// the registry from prefix.
func clusterRoleBinding(prefix, role, user string) []byte {
	return []byte(`{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding",` +
		`"metadata":{"generateName":"` + prefix + `"},` +
		`"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"` + role + `"},` +
		`"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"` + user + `"}]}`)
}

// adminPost creates a ClusterRoleBinding through the aggregator as the
// admin.
func adminPost(t *testing.T, c *http.Client, aggURL string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, aggURL+clusterRoleBindingsPath, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+aggregatorAdminToken)
	req.Header.Set("Content-Type", "application/json")
	return send(t, c, req)
}

// replay sends a captured assertion straight to the registry with body.
func replay(t *testing.T, registryURL string, kept captured, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, registryURL+clusterRoleBindingsPath, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(identity.Header, kept.token)
	req.Header.Set("Content-Type", "application/json")
	return send(t, &http.Client{Timeout: 10 * time.Second}, req)
}

func send(t *testing.T, c *http.Client, req *http.Request) (int, string) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// captured is what the tap kept of a write.
type captured struct {
	token string
	body  []byte
}

// tap is a reverse proxy on the aggregator's hop to the registry that
// keeps the assertion and body of every ClusterRoleBinding create, and
// while holding answers them itself instead of delivering them.
type tap struct {
	srv     *httptest.Server
	holding atomic.Bool

	mu   sync.Mutex
	kept []captured
}

func newTap(t *testing.T, registryURL string) *tap {
	t.Helper()
	target, err := url.Parse(registryURL)
	if err != nil {
		t.Fatal(err)
	}
	forward := httputil.NewSingleHostReverseProxy(target)
	forward.FlushInterval = -1 // watches pass through as they come
	tp := &tap{}
	tp.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == clusterRoleBindingsPath {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			tp.mu.Lock()
			tp.kept = append(tp.kept, captured{token: r.Header.Get(identity.Header), body: body})
			tp.mu.Unlock()
			if tp.holding.Load() {
				http.Error(w, "held by the tap", http.StatusServiceUnavailable)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(tp.srv.Close)
	return tp
}

// last is the write the tap kept last.
func (tp *tap) last(t *testing.T) captured {
	t.Helper()
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if len(tp.kept) == 0 || tp.kept[len(tp.kept)-1].token == "" {
		t.Fatal("the tap kept no write with an assertion")
	}
	return tp.kept[len(tp.kept)-1]
}
