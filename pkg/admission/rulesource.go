package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// DefaultRulesMaxAge is how long fetched Rules are used before they are
// fetched again: how long a new webhook configuration (or a service
// restarted with more plugins) may go unasked about requests only it
// wants. Kube calls a new webhook as soon as its informer sees it; a
// second keeps kubesplit close to that.
const DefaultRulesMaxAge = time.Second

// maxRulesBytes bounds a Rules answer; real ones are a few kilobytes.
const maxRulesBytes = 1 << 20

// RuleSourceConfig configures a RuleSource.
type RuleSourceConfig struct {
	// URL is the full address of the Rules, path included
	// (base + RulesPath). Required; http or https.
	URL string
	// HTTPClient carries the calls, with the hop's TLS and credentials;
	// nil is Go's default. Redirects are never followed.
	HTTPClient *http.Client
	// MaxAge is how long Rules (or a failure to fetch them) are kept
	// before the next fetch. Zero means DefaultRulesMaxAge.
	MaxAge time.Duration
	// Timeout bounds one fetch. Zero means DefaultWebhookTimeout.
	Timeout time.Duration
}

// RuleSource keeps a remote admission service's Rules, fetched when a
// write needs them and they are older than MaxAge. Rules past half of
// MaxAge are fetched again in the background while writes go on using
// them, so that under steady writes none waits for a fetch, and none uses
// rules older than MaxAge. Until a fetch succeeds, and from a failed fetch
// to the next one, the rules are unknown and the caller asks about every
// request.
type RuleSource struct {
	cfg    RuleSourceConfig
	client *http.Client

	// mu is held across a fetch in the foreground, so that writers
	// arriving meanwhile wait for its answer instead of fetching too.
	mu    sync.Mutex
	rules *Rules // nil: unknown
	// fetched is when the rules were fetched (when the fetch started, so
	// that their age is never understated; when it failed, for a failure);
	// started is when the fetch kept last started.
	fetched, started time.Time
	refreshing       bool // a background fetch is under way
}

// NewRuleSource validates cfg and returns a source; it fetches nothing
// until asked.
func NewRuleSource(cfg RuleSourceConfig) (*RuleSource, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: rules URL %q must be an absolute http(s) URL", ErrInvalidConfig, cfg.URL)
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = DefaultRulesMaxAge
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultWebhookTimeout
	}
	hc := http.DefaultClient
	if cfg.HTTPClient != nil {
		hc = cfg.HTTPClient
	}
	client := *hc
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &RuleSource{cfg: cfg, client: &client}, nil
}

// Rules are the published Rules and true, or false while they are not
// known (not fetched yet, or the last fetch failed), when a caller must
// ask about every request.
func (s *RuleSource) Rules(ctx context.Context) (Rules, bool) {
	r := s.current(ctx)
	if r == nil {
		return Rules{}, false
	}
	return *r, true
}

// current is the Rules, fetched first when they are older than MaxAge,
// fetched again behind the caller's back when older than half of it.
func (s *RuleSource) current(ctx context.Context) *Rules {
	s.mu.Lock()
	defer s.mu.Unlock()
	age := time.Since(s.fetched)
	switch {
	case s.fetched.IsZero() || age >= s.cfg.MaxAge:
		// One writer's cancelled request must not leave everyone with
		// unknown rules until the next fetch.
		started := time.Now()
		r, err := s.fetch(context.WithoutCancel(ctx))
		s.store(started, r, err)
	case age >= s.cfg.MaxAge/2 && !s.refreshing:
		s.refreshing = true
		go s.refresh()
	}
	return s.rules
}

// refresh fetches the Rules in the background.
func (s *RuleSource) refresh() {
	started := time.Now()
	r, err := s.fetch(context.Background())
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refreshing = false
	s.store(started, r, err)
}

// store keeps the answer of a fetch that started at started, unless the
// answer of one started later was kept already. mu must be held.
func (s *RuleSource) store(started time.Time, r *Rules, err error) {
	if started.Before(s.started) {
		return
	}
	s.rules, s.fetched, s.started = r, started, started
	if err != nil {
		slog.Warn("admission rules unknown: asking admission about every write", "url", s.cfg.URL, "err", err)
		s.rules, s.fetched = nil, time.Now()
	}
}

// fetch GETs the Rules. Anything but a 200 with a Rules object is an error.
func (s *RuleSource) fetch(ctx context.Context) (*Rules, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.cfg.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: rules answered %s", ErrUnavailable, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxRulesBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading rules: %w", ErrUnavailable, err)
	}
	if len(data) > maxRulesBytes {
		return nil, fmt.Errorf("%w: rules larger than %d bytes", ErrMalformedReview, maxRulesBytes)
	}
	var r Rules
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedReview, err)
	}
	// An answer without both lists ({} or null) is not the Rules endpoint
	// speaking: read as "no rules", it would skip admission altogether.
	if r.Mutating == nil || r.Validating == nil {
		return nil, fmt.Errorf("%w: rules answer lacks the mutating or validating list", ErrMalformedReview)
	}
	return &r, nil
}
