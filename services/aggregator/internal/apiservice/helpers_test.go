package apiservice

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/kubesplit/kubesplit/services/aggregator/internal/discovery"

	"github.com/kubesplit/kubesplit/pkg/testpki"
)

// waitLimit bounds every wait in these tests.
const waitLimit = 20 * time.Second

var quiet = slog.New(slog.DiscardHandler)

// extension is an extension API server for wardle.example.com/v1alpha1:
// it takes only connections with a client certificate of the
// requestheader CA, believes the X-Remote-* headers of those alone, and
// echoes them.
type extension struct {
	srv      *httptest.Server
	servedCA *testpki.CA // signed its serving certificate: the caBundle
	mu       sync.Mutex
	seen     []http.Header // the headers of every request but discovery checks
}

func startExtension(t *testing.T, requestHeaderCA *testpki.CA) *extension {
	t.Helper()
	e := &extension{servedCA: testpki.New(t, "extension-serving-ca")}
	e.srv = httptest.NewUnstartedServer(http.HandlerFunc(e.serve))
	e.srv.TLS = &tls.Config{
		Certificates: []tls.Certificate{e.servedCA.ServingCert(t)},
		ClientAuth:   tls.RequireAndVerifyClientCert, ClientCAs: requestHeaderCA.Pool(),
	}
	e.srv.StartTLS()
	t.Cleanup(e.srv.Close)
	return e
}

func (e *extension) serve(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Remote-User") == "" {
		http.Error(w, "no front-proxy user", http.StatusUnauthorized)
		return
	}
	if r.URL.Path == "/apis/wardle.example.com/v1alpha1" {
		_ = json.NewEncoder(w).Encode(metav1.APIResourceList{GroupVersion: "wardle.example.com/v1alpha1"})
		return
	}
	e.mu.Lock()
	e.seen = append(e.seen, r.Header.Clone())
	e.mu.Unlock()
	_ = json.NewEncoder(w).Encode(map[string]any{"user": r.Header.Get("X-Remote-User"), "groups": r.Header.Values("X-Remote-Group")})
}

func (e *extension) lastHeader() http.Header {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.seen) == 0 {
		return nil
	}
	return e.seen[len(e.seen)-1]
}

// wardle is an APIService object for wardle.example.com/v1alpha1 served
// at url with caBundle.
func wardle(url string, caBundle []byte) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1alpha1.wardle.example.com", "annotations": map[string]any{URLAnnotation: url}},
		"spec": map[string]any{
			"group": "wardle.example.com", "version": "v1alpha1", "groupPriorityMinimum": int64(1000), "versionPriority": int64(15),
			"service":  map[string]any{"namespace": "wardle", "name": "api", "port": int64(443)},
			"caBundle": base64.StdEncoding.EncodeToString(caBundle),
		},
	}}
}

// routes records what the controller installs.
type routes struct {
	mu    sync.Mutex
	svcs  []discovery.APIService
	calls int
}

func (r *routes) SetAPIServices(s []discovery.APIService) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.svcs = s
	r.calls++
	return nil
}

func (r *routes) get(name string) (discovery.APIService, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.svcs {
		if s.Name == name {
			return s, true
		}
	}
	return discovery.APIService{}, false
}

// newController returns a controller over a client holding objs, and that
// client.
func newController(t *testing.T, cert *tls.Certificate, objs ...runtime.Object) (*Controller, *routes, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{GVR: "APIServiceList"}, objs...)
	r := &routes{}
	c, err := New(Config{Client: client, Routes: r, ProxyClientCert: cert, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.stopAll)
	return c, r, client
}

// syncOnce runs one round of the controller over what the client holds.
func syncOnce(t *testing.T, c *Controller, client *dynamicfake.FakeDynamicClient) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	list, err := client.Resource(GVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	objs := make([]any, len(list.Items))
	for i := range list.Items {
		objs[i] = &list.Items[i]
	}
	c.sync(context.Background(), objs)
}

// availableOf reads the Available condition of the named APIService.
func availableOf(t *testing.T, client *dynamicfake.FakeDynamicClient, name string) condition {
	t.Helper()
	u, err := client.Resource(GVR).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := decode(u)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.available(); c != nil {
		return *c
	}
	return condition{}
}
