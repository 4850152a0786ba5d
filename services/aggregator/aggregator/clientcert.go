package aggregator

import (
	"crypto/tls"
	"fmt"

	"github.com/kubesplit/kubesplit/pkg/serve"
)

// serverTLSConfig is the serving certificate and, with a client CA file,
// the request for client certificates (kube's --client-ca-file): optional,
// so token and anonymous callers still connect, but verified when given,
// so a certificate from another CA fails the handshake instead of being
// quietly ignored. Go checks the certificate is for client auth.
func serverTLSConfig(cfg Config, cert tls.Certificate) (*tls.Config, error) {
	c := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if err := serve.RequestClientCertificates(c, cfg.ClientCAFile); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return c, nil
}
