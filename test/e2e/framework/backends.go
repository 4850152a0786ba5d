package framework

import (
	"net/http"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// BackendURL is the base URL of a backend stage (registry, authn, authz,
// admission): what a scraper or a probe reaches a replica at directly.
func (s *Stack) BackendURL(name string) string { return "https://" + s.Addr[name] }

// BackendCAFile is the CA the backends' serving certificate chains to.
func (s *Stack) BackendCAFile() string { return s.hopCA }

// BackendClient trusts the CA of the backends' serving certificate and
// sends no credentials.
func (s *Stack) BackendClient(t testing.TB) *http.Client {
	t.Helper()
	c, err := rest.HTTPClientFor(&rest.Config{TLSClientConfig: rest.TLSClientConfig{CAFile: s.hopCA}})
	if err != nil {
		t.Fatal(err)
	}
	c.Timeout = 30 * time.Second
	return c
}
