package admission

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesplit/kubesplit/pkg/polltest"
)

// cluster is what the plugins see: the namespaces and service accounts of
// a small cluster, in the fake clientset the service's informers read
// (a data source; the service and its plugins are real).
func cluster() []runtime.Object {
	return []runtime.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "dying"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "default"}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "dying", Name: "default"}},
	}
}

// start runs the service on a free loopback port with cfg's other fields,
// and waits until it is ready.
func start(t *testing.T, cfg Config) *Server {
	t.Helper()
	s := launch(t, cfg)
	waitReady(t, s.URL())
	return s
}

// launch runs the service as start does, without waiting for it to be ready.
func launch(t *testing.T, cfg Config) *Server {
	t.Helper()
	cfg.BindAddress = "127.0.0.1:0"
	cfg.Log = slog.New(slog.DiscardHandler)
	if cfg.Client == nil {
		cfg.Client = fake.NewClientset(cluster()...)
	}
	cfg.LocalConfig = onFake(cfg.LocalConfig)
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// onFake is cfg for a service on a fake clientset, without a REST
// configuration: MutatingAdmissionPolicy, which needs one (for its dynamic
// client and the OpenAPI it types objects with), disabled.
func onFake(cfg LocalConfig) LocalConfig {
	if cfg.RESTConfig == nil && !slices.Contains(cfg.DisablePlugins, MutatingAdmissionPolicy) {
		cfg.DisablePlugins = append(slices.Clone(cfg.DisablePlugins), MutatingAdmissionPolicy)
	}
	return cfg
}

// waitReady polls /readyz until it answers 200.
func waitReady(t *testing.T, url string) {
	t.Helper()
	polltest.Until(t, 10*time.Second, "/readyz to pass", func() bool {
		code, _ := do(t, http.MethodGet, url+"/readyz", nil)
		return code == http.StatusOK
	})
}

// do makes one request and returns the status and body.
func do(t *testing.T, method, url string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}
