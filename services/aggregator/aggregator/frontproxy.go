package aggregator

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"os"
	"path/filepath"
)

// The front-proxy files generated under Config.CertDir when no proxy
// client certificate is given: the CA extension API servers trust (its key
// is not kept) and the certificate the aggregator presents to them.
const (
	FrontProxyCAFile   = "front-proxy-ca.crt"
	FrontProxyCertFile = "front-proxy-client.crt"
	FrontProxyKeyFile  = "front-proxy-client.key"
)

// frontProxyCommonName is the CN of the generated proxy client
// certificate, the one name extension servers are told to allow.
const frontProxyCommonName = "front-proxy-client"

// frontProxy is what the aggregator presents to APIService backends and
// what it publishes so that they can verify it.
type frontProxy struct {
	cert         tls.Certificate
	caPEM        []byte
	allowedNames []string
}

// loadFrontProxy loads the configured proxy client certificate with its
// CA (--requestheader-client-ca-file), or the generated one, generating it
// on the first start.
func loadFrontProxy(cfg Config) (*frontProxy, error) {
	certFile, keyFile, caFile := cfg.ProxyClientCertFile, cfg.ProxyClientKeyFile, cfg.RequestHeaderClientCAFile
	names := cfg.RequestHeaderAllowedNames
	if certFile == "" {
		certFile, keyFile = filepath.Join(cfg.CertDir, FrontProxyCertFile), filepath.Join(cfg.CertDir, FrontProxyKeyFile)
		caFile = filepath.Join(cfg.CertDir, FrontProxyCAFile)
		if names == nil {
			names = []string{frontProxyCommonName}
		}
		if !exists(certFile) || !exists(keyFile) || !exists(caFile) {
			if err := generateFrontProxy(cfg.CertDir, caFile, certFile, keyFile); err != nil {
				return nil, fmt.Errorf("aggregator: generating the proxy client certificate: %w", err)
			}
		}
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("%w: proxy client certificate: %w", ErrInvalidConfig, err)
	}
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("%w: requestheader client CA: %w", ErrInvalidConfig, err)
	}
	return &frontProxy{cert: cert, caPEM: caPEM, allowedNames: names}, nil
}

// generateFrontProxy writes a new CA and a client certificate it signs.
func generateFrontProxy(dir, caPath, certPath, keyPath string) error {
	return generateSigned(dir, caPath, certPath, keyPath, &x509.Certificate{
		Subject:     pkix.Name{CommonName: frontProxyCommonName},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}
