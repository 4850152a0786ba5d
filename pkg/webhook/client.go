package webhook

import (
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// DefaultTimeout bounds one call when Config.Timeout is zero; it is
// kube-apiserver's default for its webhooks.
const DefaultTimeout = 10 * time.Second

// DefaultMaxResponseBytes bounds an answer when NewClient is given zero:
// kube-apiserver's limit for a whole request.
const DefaultMaxResponseBytes = 3 << 20

// Config is where a webhook is and how to call it: what every stage's
// webhook client is configured with (authz and admission use it as their
// WebhookConfig, authn adds its audiences to it).
type Config struct {
	// URL is the full address requests are POSTed to, path included.
	// Required; http or https.
	URL string
	// HTTPClient carries the calls, with whatever TLS and credentials the
	// hop needs. Nil means Go's default transport. Redirects are never
	// followed, whichever client: a redirected POST comes back as a GET,
	// which some other endpoint could answer.
	HTTPClient *http.Client
	// Timeout bounds each call, whatever the caller's context allows; a
	// call that times out is an error, never an answer. Zero means
	// DefaultTimeout.
	Timeout time.Duration
}

// Client POSTs JSON requests to one webhook and decodes its answers.
type Client struct {
	url      string
	client   *http.Client
	timeout  time.Duration
	maxBytes int64
}

// NewClient validates cfg and returns a client for it that reads at most
// maxResponseBytes of an answer (zero means DefaultMaxResponseBytes): the
// limit is the protocol's, not the caller's.
func NewClient(cfg Config, maxResponseBytes int64) (*Client, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: URL %q must be an absolute http or https URL", ErrInvalidConfig, cfg.URL)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("%w: negative timeout", ErrInvalidConfig)
	}
	if maxResponseBytes < 0 {
		return nil, fmt.Errorf("%w: negative response size limit", ErrInvalidConfig)
	}
	c := &Client{url: u.String(), client: noRedirects(cfg.HTTPClient), timeout: cfg.Timeout, maxBytes: maxResponseBytes}
	if c.timeout == 0 {
		c.timeout = DefaultTimeout
	}
	if c.maxBytes == 0 {
		c.maxBytes = DefaultMaxResponseBytes
	}
	return c, nil
}

// noRedirects returns a copy of hc (or of a zero client) that hands a
// redirect back as the answer, which Post then refuses as non-2xx. A copy,
// so that the caller's client keeps its own policy elsewhere.
func noRedirects(hc *http.Client) *http.Client {
	c := &http.Client{}
	if hc != nil {
		*c = *hc
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}
