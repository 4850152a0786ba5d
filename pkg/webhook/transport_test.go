package webhook

import (
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestNewCAClient: the client reaches a server whose CA is in the bundle,
// refuses one signed by another CA (the system's roots when the bundle is
// empty), and a bundle without a certificate is refused.
func TestNewCAClient(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})

	trusting, err := NewCAClient(caPEM)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := trusting.Get(srv.URL)
	if err != nil {
		t.Fatalf("with the server's CA: %v", err)
	}
	_ = resp.Body.Close()

	systemRoots, err := NewCAClient(nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := systemRoots.Get(srv.URL); err == nil {
		_ = resp.Body.Close()
		t.Fatal("the system's roots trusted a test CA")
	}

	if _, err := NewCAClient([]byte("not a certificate")); !errors.Is(err, ErrNoCACertificate) {
		t.Fatalf("bundle with no certificate: %v, want ErrNoCACertificate", err)
	}
}

func TestServiceURL(t *testing.T) {
	port, path := int32(8443), "/mutate"
	for _, c := range []struct {
		port *int32
		path *string
		want string
	}{
		{nil, nil, "https://hook.team.svc:443"},
		{&port, &path, "https://hook.team.svc:8443/mutate"},
	} {
		if got := ServiceURL("team", "hook", c.port, c.path); got != c.want {
			t.Errorf("ServiceURL = %q, want %q", got, c.want)
		}
	}
}
