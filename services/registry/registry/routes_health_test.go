package registry

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/serve"
)

// The registry's readiness names its parts for the aggregator, which
// lists them under kube's names: storage-readiness (the built-in
// resources' caches) and crds-synced (custom resources served as the
// CRDs say), each served alone too, with no credentials.
func TestReadinessNamesItsParts(t *testing.T) {
	srv, err := Start(context.Background(), Config{Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, DataDir: t.TempDir(),
		DisableControllers: true, InsecureAllowUnauthenticated: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(srv.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	code, body := get("/readyz?verbose")
	for _, line := range []string{"[+]etcd ok", "[+]informer-sync ok", "[+]storage-readiness ok", "[+]crds-synced ok"} {
		if code != http.StatusOK || !strings.Contains(body, line+"\n") {
			t.Errorf("/readyz?verbose = %d, lacks %q:\n%s", code, line, body)
		}
	}
	for _, name := range []string{"storage-readiness", "crds-synced"} {
		if code, body := get("/readyz/" + name); code != http.StatusOK || body != "ok" {
			t.Errorf("/readyz/%s = %d %q", name, code, body)
		}
	}
	if code, body := get("/livez?verbose"); code != http.StatusOK || strings.Contains(body, "crds-synced") {
		t.Errorf("/livez?verbose = %d, want the parts of readiness left out:\n%s", code, body)
	}

	// Without CRD storage no custom resource is served as the CRDs say.
	empty := &Server{stores: srv.stores[:1]}
	if err := empty.crdsSynced(t.Context()); err == nil {
		t.Error("crds-synced passed with no CRD storage")
	}
	if err := empty.storageReady(t.Context()); err != nil {
		t.Errorf("storage-readiness of a filled cache: %v", err)
	}
}
