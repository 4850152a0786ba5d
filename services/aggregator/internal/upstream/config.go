package upstream

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"time"
)

// Defaults for the zero values of Config.
const (
	DefaultResolveEvery = 5 * time.Second
	DefaultHealthPath   = "/readyz"
	// DefaultHealthEvery is short because an endpoint taken out by a
	// reported connection error only comes back with the next check.
	DefaultHealthEvery  = 2 * time.Second
	DefaultCheckTimeout = 2 * time.Second
)

// Resolver looks up the addresses of a host name. *net.Resolver is one;
// tests inject their own.
type Resolver interface {
	LookupHost(ctx context.Context, host string) ([]string, error)
}

// Config describes one upstream.
type Config struct {
	// Name identifies the upstream in errors, logs and metrics
	// ("registry", "authn").
	Name string
	// URLs are the upstream's base URLs, http(s)://host[:port] with no
	// path, query or user info. A host that is a DNS name stands for every
	// address it resolves to, each with the URL's scheme and port.
	URLs []string
	// ResolveEvery is how often DNS names are resolved again; zero means
	// DefaultResolveEvery.
	ResolveEvery time.Duration
	// HealthPath is the path requested on every endpoint to check it; it
	// is healthy while that answers 200. Empty means DefaultHealthPath.
	HealthPath string
	// HealthHeader is sent with every health check, for backends that
	// want to know who asks (an APIService's backend checks the
	// front-proxy headers on its discovery path).
	HealthHeader http.Header
	// HealthEvery is how often every endpoint is checked; zero means
	// DefaultHealthEvery.
	HealthEvery time.Duration
	// CheckTimeout bounds one DNS lookup and one health check; zero means
	// DefaultCheckTimeout.
	CheckTimeout time.Duration
	// Transport carries the health checks and, through Transport(), the
	// proxied requests. Nil means a clone of http.DefaultTransport. For an
	// *http.Transport (or nil) the TLS server name of an endpoint found
	// through DNS stays that DNS name, so certificates issued for the
	// service name verify; any other RoundTripper is used as it is.
	Transport http.RoundTripper
	// Resolver resolves DNS names; nil means net.DefaultResolver.
	Resolver Resolver
	// Log receives endpoint state changes and lookup errors; nil means
	// slog.Default().
	Log *slog.Logger
}

// source is one configured URL, parsed.
type source struct {
	scheme string
	host   string // a DNS name or an IP address, without brackets
	port   string // may be empty: the scheme's default
	isIP   bool
}

// endpointURL is the URL of address addr resolved from s.
func (s source) endpointURL(addr string) *url.URL {
	host := addr
	if s.port != "" {
		host = net.JoinHostPort(addr, s.port)
	} else if a, err := netip.ParseAddr(addr); err == nil && a.Is6() {
		host = "[" + addr + "]"
	}
	return &url.URL{Scheme: s.scheme, Host: host}
}

// parseSource checks that raw is a bare http(s)://host[:port].
func parseSource(raw string) (source, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return source{}, fmt.Errorf("%w: URL %q: %v", ErrInvalidConfig, raw, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return source{}, fmt.Errorf("%w: URL %q: scheme must be http or https", ErrInvalidConfig, raw)
	case u.Hostname() == "":
		return source{}, fmt.Errorf("%w: URL %q: no host", ErrInvalidConfig, raw)
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return source{}, fmt.Errorf("%w: URL %q: only scheme, host and port are allowed", ErrInvalidConfig, raw)
	}
	_, err = netip.ParseAddr(u.Hostname())
	return source{scheme: u.Scheme, host: u.Hostname(), port: u.Port(), isIP: err == nil}, nil
}

// settings is a validated Config with its defaults applied.
type settings struct {
	name                                    string
	sources                                 []source
	resolveEvery, healthEvery, checkTimeout time.Duration
	healthPath                              string
	healthHeader                            http.Header
	resolver                                Resolver
	log                                     *slog.Logger
}

func (c Config) settings() (settings, error) {
	s := settings{
		name: c.Name, resolveEvery: c.ResolveEvery, healthEvery: c.HealthEvery,
		checkTimeout: c.CheckTimeout, healthPath: c.HealthPath, healthHeader: c.HealthHeader.Clone(), resolver: c.Resolver, log: c.Log,
	}
	if c.Name == "" {
		return s, fmt.Errorf("%w: no name", ErrInvalidConfig)
	}
	if len(c.URLs) == 0 {
		return s, fmt.Errorf("%w: upstream %q has no URLs", ErrInvalidConfig, c.Name)
	}
	if c.ResolveEvery < 0 || c.HealthEvery < 0 || c.CheckTimeout < 0 {
		return s, fmt.Errorf("%w: upstream %q: negative interval", ErrInvalidConfig, c.Name)
	}
	if c.HealthPath != "" && c.HealthPath[0] != '/' {
		return s, fmt.Errorf("%w: upstream %q: health path %q must start with /", ErrInvalidConfig, c.Name, c.HealthPath)
	}
	for _, raw := range c.URLs {
		src, err := parseSource(raw)
		if err != nil {
			return s, err
		}
		s.sources = append(s.sources, src)
	}
	s.applyDefaults()
	return s, nil
}

func (s *settings) applyDefaults() {
	if s.resolveEvery == 0 {
		s.resolveEvery = DefaultResolveEvery
	}
	if s.healthEvery == 0 {
		s.healthEvery = DefaultHealthEvery
	}
	if s.checkTimeout == 0 {
		s.checkTimeout = DefaultCheckTimeout
	}
	if s.healthPath == "" {
		s.healthPath = DefaultHealthPath
	}
	if s.resolver == nil {
		s.resolver = net.DefaultResolver
	}
	if s.log == nil {
		s.log = slog.Default()
	}
}
