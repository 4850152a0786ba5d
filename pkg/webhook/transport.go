package webhook

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"strconv"
	"time"
)

// ErrNoCACertificate is returned by NewCAClient given a caBundle with no
// PEM certificate in it; callers say which caBundle.
var ErrNoCACertificate = errors.New("caBundle holds no PEM certificate")

// NewCAClient is an HTTP client for a webhook configured by the API (an
// admission webhook, a CRD's conversion webhook): it trusts the PEM
// certificates of caBundle, or the system's roots when it is empty.
func NewCAClient(caBundle []byte) (*http.Client, error) {
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caBundle) {
			return nil, ErrNoCACertificate
		}
		tlsConfig.RootCAs = pool
	}
	// No proxy from the environment: webhooks are reached directly, as
	// kube-apiserver reaches them.
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig:     tlsConfig,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}}, nil
}

// ServiceURL is the address of a webhook given by its service, as kube's
// default service resolver makes it: https://<name>.<namespace>.svc:<port><path>,
// port 443 unless set.
func ServiceURL(namespace, name string, port *int32, path *string) string {
	p := int32(443)
	if port != nil {
		p = *port
	}
	u := "https://" + name + "." + namespace + ".svc:" + strconv.Itoa(int(p))
	if path != nil {
		u += *path
	}
	return u
}
