package serve

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
)

// maxIdlePerHost keeps as many idle connections to one backend as a busy
// hop has requests in flight: Go's default of two makes concurrent calls
// open, and leave in TIME_WAIT, a connection each.
const maxIdlePerHost = 256

// CertPool reads a PEM bundle of CA certificates, as the --*-ca-file flags
// name them.
func CertPool(file string) (*x509.CertPool, error) {
	pemBytes, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		return nil, fmt.Errorf("%s holds no certificate", file)
	}
	return pool, nil
}

// ClientTransport is how one service calls another: Go's default transport
// with an idle pool sized for concurrent calls, trusting caFile's
// certificates for https backends (the system's when empty).
func ClientTransport(caFile string) (*http.Transport, error) {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = maxIdlePerHost
	if caFile == "" {
		return t, nil
	}
	pool, err := CertPool(caFile)
	if err != nil {
		return nil, fmt.Errorf("CA file: %w", err)
	}
	t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return t, nil
}
