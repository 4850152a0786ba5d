// Package extapi is a small extension API server for the end-to-end tests
// of API aggregation: it serves one group version,
// wardle.example.com/v1alpha1, with one namespaced resource, flunders,
// read-only. As any extension server behind kube's aggregator, it believes
// the front-proxy headers (X-Remote-User, …) only on a connection whose
// client certificate the requestheader CA signed, as the data of
// kube-system/extension-apiserver-authentication says; every flunder it
// returns names who asked for it, and it records every request it served.
package extapi

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// What the server serves.
const (
	Group    = "wardle.example.com"
	Version  = "v1alpha1"
	Resource = "flunders"
	Kind     = "Flunder"
)

// Config configures a Server.
type Config struct {
	// Authentication is the data of the
	// kube-system/extension-apiserver-authentication ConfigMap. Required.
	Authentication map[string]string
	// CertFile and KeyFile are the serving certificate, for 127.0.0.1.
	CertFile, KeyFile string
}

// Request is a request the server authenticated.
type Request struct {
	User   string
	Groups []string
	Extra  map[string][]string
	Method string
	Path   string
}

// Server is a running extension API server.
type Server struct {
	// URL is https://127.0.0.1:<port>.
	URL  string
	srv  *http.Server
	auth *requestHeader
	mu   sync.Mutex
	seen []Request
}

// Start serves on a free loopback port until Close.
func Start(cfg Config) (*Server, error) {
	auth, err := newRequestHeader(cfg.Authentication)
	if err != nil {
		return nil, err
	}
	cert, err := tls.LoadX509KeyPair(cfg.CertFile, cfg.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("extapi: serving certificate: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{URL: "https://" + ln.Addr().String(), auth: auth}
	s.srv = &http.Server{
		Handler:           s.routes(),
		ReadHeaderTimeout: 10 * time.Second,
		// Client certificates are asked for and verified when given; a
		// request without one is refused by the handler, with a Status.
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12,
			ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: auth.ca,
		},
	}
	go func() {
		if err := s.srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(err)
		}
	}()
	return s, nil
}

// Close stops serving at once, as an outage would.
func (s *Server) Close() { _ = s.srv.Close() }

// Requests returns the authenticated requests served so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.seen...)
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, r)
}
