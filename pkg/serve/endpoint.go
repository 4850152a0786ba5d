package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
)

// Endpoint is where and how a service listens.
type Endpoint struct {
	// BindAddress is the host:port to listen on; port 0 picks a free port.
	// Ignored when Listener is set.
	BindAddress string
	// Listener, when set, is used as it is: a socket inherited from a
	// supervisor or a test that reserved the port.
	Listener net.Listener
	// TLSCertFile and TLSPrivateKeyFile, given together, make the service
	// speak HTTPS (and HTTP/2) with that certificate; both empty is plain
	// HTTP, for loopback development only.
	TLSCertFile, TLSPrivateKeyFile string
	// TLSConfig, when set, is used instead of the files: for a caller that
	// made or holds its certificates itself (the aggregator's generated
	// CA, client-certificate verification).
	TLSConfig *tls.Config
	// ClientCAFile, with the certificate files, asks clients for a
	// certificate signed by one of its CAs (kube's --client-ca-file):
	// optional, so callers without one still connect, but verified when
	// given. Only over TLS: without the certificate files it is an error.
	ClientCAFile string
	// Limits bound the connections clients may hold; the zero value is
	// the defaults.
	Limits Limits
}

// listen opens the endpoint's listener and tells the URL scheme it
// serves. wrap is applied to the socket's listener beneath TLS.
func (e Endpoint) listen(ctx context.Context, wrap func(net.Listener) net.Listener) (net.Listener, string, error) {
	tlsConfig, err := e.tlsConfig()
	if err != nil {
		return nil, "", err
	}
	ln := e.Listener
	if ln == nil {
		if e.BindAddress == "" {
			return nil, "", errors.New("serve: no bind address")
		}
		if ln, err = (&net.ListenConfig{}).Listen(ctx, "tcp", e.BindAddress); err != nil {
			return nil, "", err
		}
	}
	ln = wrap(ln)
	if tlsConfig == nil {
		return ln, "http", nil
	}
	return tls.NewListener(ln, tlsConfig), "https", nil
}

// tlsConfig is the endpoint's TLS configuration, nil for plain HTTP.
func (e Endpoint) tlsConfig() (*tls.Config, error) {
	if e.TLSConfig != nil {
		return withHTTP2(e.TLSConfig), nil
	}
	if (e.TLSCertFile == "") != (e.TLSPrivateKeyFile == "") {
		return nil, errors.New("serve: --tls-cert-file and --tls-private-key-file go together")
	}
	if e.TLSCertFile == "" {
		if e.ClientCAFile != "" {
			// A client certificate is a property of a TLS connection:
			// over plain HTTP nobody could present one.
			return nil, errors.New("serve: --client-ca-file needs --tls-cert-file and --tls-private-key-file")
		}
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(e.TLSCertFile, e.TLSPrivateKeyFile)
	if err != nil {
		return nil, fmt.Errorf("serve: loading the serving certificate: %w", err)
	}
	c := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if err := RequestClientCertificates(c, e.ClientCAFile); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	return withHTTP2(c), nil
}

// RequestClientCertificates makes c ask clients for a certificate signed
// by a CA of caFile (nothing when caFile is empty): optional, so token and
// anonymous callers still connect, but verified when given, so a
// certificate from another CA fails the handshake instead of being quietly
// ignored. Go checks the certificate is for client auth.
func RequestClientCertificates(c *tls.Config, caFile string) error {
	if caFile == "" {
		return nil
	}
	pool, err := CertPool(caFile)
	if err != nil {
		return fmt.Errorf("client CA: %w", err)
	}
	c.ClientAuth, c.ClientCAs = tls.VerifyClientCertIfGiven, pool
	return nil
}

// withHTTP2 offers HTTP/2 first, as kube-apiserver does: the listener is
// wrapped here, so net/http cannot add the protocols itself.
func withHTTP2(c *tls.Config) *tls.Config {
	c = c.Clone()
	if len(c.NextProtos) == 0 {
		c.NextProtos = []string{"h2", "http/1.1"}
	}
	return c
}

// InheritedListener is the listening socket a supervisor passed as file
// descriptor fd.
func InheritedListener(fd int) (net.Listener, error) {
	f := os.NewFile(uintptr(fd), "listen-fd")
	ln, err := net.FileListener(f)
	_ = f.Close() // FileListener holds its own duplicate
	if err != nil {
		return nil, fmt.Errorf("--listen-fd %d: %w", fd, err)
	}
	return ln, nil
}
