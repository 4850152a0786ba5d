package apiservice

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/testpki"
)

// TestAPIServiceProxiesWithFrontProxyIdentity: an APIService with a
// backend is routed once its discovery check passes (Available=True),
// its requests reach the backend over mutual TLS with the caller in the
// X-Remote-* headers (whatever the client sent there replaced), and when
// the backend goes away it turns Available=False and its requests 503.
func TestAPIServiceProxiesWithFrontProxyIdentity(t *testing.T) {
	frontCA := testpki.New(t, "front-proxy-ca")
	clientCert := frontCA.ClientCert(t, "front-proxy-client")
	ext := startExtension(t, frontCA)
	c, r, client := newController(t, &clientCert, wardle(ext.srv.URL, ext.servedCA.PEM()))

	polltest.Until(t, waitLimit, "wardle to be available", func() bool {
		syncOnce(t, c, client)
		return availableOf(t, client, "v1alpha1.wardle.example.com").Status == statusTrue
	})
	if got := availableOf(t, client, "v1alpha1.wardle.example.com"); got.Reason != reasonPassed || got.LastTransitionTime.IsZero() {
		t.Errorf("Available = %+v, want reason %s with a transition time", got, reasonPassed)
	}
	svc, ok := r.get("v1alpha1.wardle.example.com")
	if !ok || svc.Group != "wardle.example.com" || svc.Version != "v1alpha1" || svc.GroupPriorityMinimum != 1000 || svc.VersionPriority != 15 {
		t.Fatalf("routes = %+v, want wardle.example.com/v1alpha1 with its priorities", svc)
	}

	rec := proxyAs(svc.Backend, authenticationv1.UserInfo{
		Username: "alice", UID: "uid-alice", Groups: []string{"team-a", "system:authenticated"},
		Extra: map[string]authenticationv1.ExtraValue{"scopes.example.com/Team": {"x", "y"}},
	})
	if rec.Code != http.StatusOK {
		t.Fatalf("proxied request: %d %s", rec.Code, rec.Body)
	}
	h := ext.lastHeader()
	if h.Get("X-Remote-User") != "alice" || h.Get("X-Remote-Uid") != "uid-alice" ||
		!slices.Equal(h.Values("X-Remote-Group"), []string{"team-a", "system:authenticated"}) ||
		!slices.Equal(h.Values("X-Remote-Extra-Scopes.example.com%2fteam"), []string{"x", "y"}) {
		t.Errorf("backend saw %v, want alice's identity in the front-proxy headers", h)
	}
	if h.Get("X-Remote-Extra-Forged") != "" || h.Get("Authorization") != "" {
		t.Errorf("backend saw the client's own headers: %v", h)
	}

	ext.srv.Close()
	polltest.Until(t, waitLimit, "wardle to be unavailable", func() bool {
		syncOnce(t, c, client)
		return availableOf(t, client, "v1alpha1.wardle.example.com").Status == statusFalse
	})
	if got := availableOf(t, client, "v1alpha1.wardle.example.com"); got.Reason != reasonFailed {
		t.Errorf("Available = %+v, want reason %s", got, reasonFailed)
	}
	if rec := proxyAs(svc.Backend, authenticationv1.UserInfo{Username: "alice"}); rec.Code != http.StatusServiceUnavailable {
		t.Errorf("request to a stopped backend: %d %s, want 503", rec.Code, rec.Body)
	}
}

// proxyAs sends a GET through b as user, with identity headers of the
// client's own that must not reach the backend.
func proxyAs(b http.Handler, user authenticationv1.UserInfo) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "/apis/wardle.example.com/v1alpha1/namespaces/default/flunders", nil)
	req.Header.Set("X-Remote-User", "mallory")
	req.Header.Set("X-Remote-Extra-Forged", "1")
	req.Header.Set("Authorization", "Bearer secret")
	ctx, cancel := context.WithTimeout(request.WithUser(req.Context(), user), waitLimit)
	defer cancel()
	rec := httptest.NewRecorder()
	b.ServeHTTP(rec, req.WithContext(ctx))
	return rec
}

// TestBackendWithoutTheProxyCertificateIsUnavailable: a backend that
// requires the requestheader CA's certificate refuses an aggregator
// presenting none, so the APIService never becomes available.
func TestBackendWithoutTheProxyCertificateIsUnavailable(t *testing.T) {
	ext := startExtension(t, testpki.New(t, "front-proxy-ca"))
	c, r, client := newController(t, nil, wardle(ext.srv.URL, ext.servedCA.PEM()))
	var got condition
	polltest.Until(t, waitLimit, "the first discovery check to be reported", func() bool {
		syncOnce(t, c, client)
		got = availableOf(t, client, "v1alpha1.wardle.example.com")
		return got.Type != ""
	})
	if got.Status != statusFalse || !strings.Contains(got.Message, "certificate") {
		t.Errorf("Available = %+v, want False for want of a client certificate", got)
	}
	if _, ok := r.get("v1alpha1.wardle.example.com"); !ok {
		t.Error("an unavailable APIService is not routed: its requests should answer 503, not go elsewhere")
	}
}

// TestInvalidBackendAndLocalAPIServices: a caBundle with no certificate
// makes the APIService unavailable with the reason, its group answering
// 503; an APIService without a service is local: available, not routed.
func TestInvalidBackendAndLocalAPIServices(t *testing.T) {
	bad := wardle("https://127.0.0.1:1", []byte("not a certificate"))
	local := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1.apps"},
		"spec":     map[string]any{"group": "apps", "version": "v1", "groupPriorityMinimum": int64(17800), "versionPriority": int64(15)},
	}}
	c, r, client := newController(t, nil, bad, local)
	syncOnce(t, c, client)

	if got := availableOf(t, client, "v1alpha1.wardle.example.com"); got.Status != statusFalse || got.Reason != reasonAccessError {
		t.Errorf("bad caBundle: Available = %+v, want False, %s", got, reasonAccessError)
	}
	svc, ok := r.get("v1alpha1.wardle.example.com")
	if !ok {
		t.Fatal("the APIService with a bad caBundle is not routed")
	}
	// As any stage that cannot serve: 503 with Retry-After, so clients retry.
	if rec := proxyAs(svc.Backend, authenticationv1.UserInfo{Username: "alice"}); rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("bad caBundle: %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
	}
	if got := availableOf(t, client, "v1.apps"); got.Status != statusTrue || got.Reason != reasonLocal {
		t.Errorf("local: Available = %+v, want True, %s", got, reasonLocal)
	}
	if _, ok := r.get("v1.apps"); ok {
		t.Error("a local APIService was routed to a backend")
	}
}

// TestLocalAPIServiceChangesReachRoutes: a local APIService arriving (a
// CRD's group) is not routed but is told to Routes, whose merged discovery
// must list the new group at once; a round with nothing new tells nothing.
func TestLocalAPIServiceChangesReachRoutes(t *testing.T) {
	local := func(name, group string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": map[string]any{"name": name},
			"spec": map[string]any{"group": group, "version": "v1", "groupPriorityMinimum": int64(1000), "versionPriority": int64(100)},
		}}
	}
	c, r, client := newController(t, nil, local("v1.apps", "apps"))
	syncOnce(t, c, client)
	syncOnce(t, c, client)
	if r.calls != 1 {
		t.Fatalf("Routes told %d times for one unchanged local APIService, want 1", r.calls)
	}
	if _, err := client.Resource(GVR).Create(context.Background(), local("v1.stable.example.com", "stable.example.com"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	syncOnce(t, c, client)
	if r.calls != 2 {
		t.Errorf("Routes told %d times after a local APIService arrived, want 2", r.calls)
	}
}

// TestUnchangedBackendIsKept: a round with nothing new keeps the backend
// built before (its connections and health); a changed spec replaces it.
func TestUnchangedBackendIsKept(t *testing.T) {
	obj := wardle("https://127.0.0.1:1", testpki.New(t, "ca").PEM())
	c, _, client := newController(t, nil, obj)
	syncOnce(t, c, client)
	built := c.backends["v1alpha1.wardle.example.com"]
	syncOnce(t, c, client)
	if built == nil || c.backends["v1alpha1.wardle.example.com"] != built {
		t.Fatal("an unchanged APIService's backend was built again")
	}
	obj.SetAnnotations(map[string]string{URLAnnotation: "https://127.0.0.1:2"})
	if _, err := client.Resource(GVR).Update(context.Background(), obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	syncOnce(t, c, client)
	if c.backends["v1alpha1.wardle.example.com"] == built {
		t.Error("a new URL kept the old backend")
	}
}

// TestStatusIsNotRewrittenWhenUnchanged: a second round with nothing new
// writes nothing, so the aggregator does not churn resourceVersions.
func TestStatusIsNotRewrittenWhenUnchanged(t *testing.T) {
	c, _, client := newController(t, nil, wardle("https://127.0.0.1:1", []byte("bad")))
	syncOnce(t, c, client)
	before := len(client.Actions())
	syncOnce(t, c, client)
	for _, a := range client.Actions()[before:] {
		if a.GetVerb() == "update" {
			raw, _ := json.Marshal(a)
			t.Errorf("unchanged APIService written again: %s", raw)
		}
	}
}
