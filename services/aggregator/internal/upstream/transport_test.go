package upstream

import (
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// httptest's certificate names example.com and 127.0.0.1, never the
// documentation address the name resolves to here: the check passes only
// if TLS verifies the DNS name.
func TestTLSVerifiesTheDNSName(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().String()[strings.LastIndex(srv.Listener.Addr().String(), ":")+1:]

	fnet := newFakeNet()
	fnet.setName("example.com", "192.0.2.1")
	fnet.route("192.0.2.1:"+port, srv.Listener.Addr().String())
	tr := fnet.transport()
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	tr.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	tr.TLSClientConfig.RootCAs = roots

	u := newUpstream(t, Config{URLs: []string{"https://example.com:" + port}, Resolver: fnet, Transport: tr})
	if err := u.Resolve(ctx(t)); err != nil {
		t.Fatal(err)
	}
	eps := u.Endpoints()
	if len(eps) != 1 || !eps[0].Healthy {
		t.Fatalf("Endpoints = %+v, want one healthy", eps)
	}
	if eps[0].URL.Host != "192.0.2.1:"+port {
		t.Fatalf("endpoint %s, want the resolved address", eps[0].URL)
	}

	req, _ := http.NewRequestWithContext(ctx(t), http.MethodGet, eps[0].URL.String()+"/", nil)
	resp, err := u.Transport().RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Errorf("backend spoken to over %s, want HTTP/2", resp.Proto)
	}
}
