package aggregator

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/metrics"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/discovery"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"

	"github.com/kubesplit/kubesplit/pkg/tracing"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// The upstream names: each is also the audience of the assertions sent
// to it, which is what the registry's verifier expects.
const (
	registryUpstream = discovery.Registry
	authnUpstream    = discovery.Authn
	authzUpstream    = discovery.Authz
	// admissionUpstream is only health-checked: nothing routes there.
	admissionUpstream = "admission"
)

// selfUser is who the aggregator asserts it is when it calls an upstream
// on its own behalf (webhook reviews, the merged /apis): a name nobody can
// obtain a token for.
var selfUser = authenticationv1.UserInfo{Username: "system:kubesplit:aggregator", Groups: []string{"system:authenticated"}}

// startUpstreams creates and starts the configured upstreams, by name;
// they run until ctx is done.
func startUpstreams(ctx context.Context, cfg Config) (map[string]*upstream.Upstream, error) {
	transport, err := upstreamTransport(cfg.UpstreamCAFile)
	if err != nil {
		return nil, err
	}
	ups := map[string]*upstream.Upstream{}
	for name, urls := range map[string][]string{
		registryUpstream: cfg.Upstreams.Registry,
		authnUpstream:    cfg.Upstreams.Authn,
		authzUpstream:    cfg.Upstreams.Authz,
	} {
		if len(urls) == 0 {
			continue
		}
		u, err := upstream.New(upstream.Config{Name: name, URLs: urls, Transport: transport.Clone(), Log: cfg.Log})
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
		}
		ups[name] = u
	}
	// Each Start checks its endpoints before it returns, so that the
	// aggregator serves at once through those that answer; concurrently,
	// since one that does not answer holds its upstream for the check
	// timeout, and must not hold the others too.
	var wg sync.WaitGroup
	for name, u := range ups {
		if cfg.Upstreams.AuthStartsLater && (name == authnUpstream || name == authzUpstream) {
			u.StartUnchecked(ctx)
			continue
		}
		wg.Go(func() { u.Start(ctx) })
	}
	wg.Wait()
	return ups, nil
}

// startAdmissionUpstream creates and starts the admission upstream, whose
// health alone the aggregator follows; nil when none is configured.
func startAdmissionUpstream(ctx context.Context, cfg Config) (*upstream.Upstream, error) {
	if len(cfg.Upstreams.Admission) == 0 {
		return nil, nil
	}
	transport, err := upstreamTransport(cfg.UpstreamCAFile)
	if err != nil {
		return nil, err
	}
	u, err := upstream.New(upstream.Config{Name: admissionUpstream, URLs: cfg.Upstreams.Admission, Transport: transport, Log: cfg.Log})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	u.Start(ctx)
	return u, nil
}

// upstreamTransport is the transport services call each other with,
// trusting caFile's certificates when given.
func upstreamTransport(caFile string) (*http.Transport, error) {
	t, err := serve.ClientTransport(caFile)
	if err != nil {
		return nil, fmt.Errorf("%w: upstream %w", ErrInvalidConfig, err)
	}
	return t, nil
}

// upstreamPlaceholder is the base URL a webhook client is configured
// with; poolTransport replaces its scheme and host with an endpoint's.
func upstreamPlaceholder(name string) string { return "http://" + name + ".upstream.invalid" }

// webhookClient returns a client whose requests go to a healthy endpoint
// of u, signed as the aggregator itself and timed by stages; nil when u
// is nil.
func webhookClient(u *upstream.Upstream, signer *identity.Signer, stages *metrics.Stages) *http.Client {
	if u == nil {
		return nil
	}
	return &http.Client{
		Transport: tracing.Transport(stages.Transport(u.Name(), signer.Transport(&poolTransport{up: u}, selfUser, u.Name()))),
		// A redirected POST would come back as a GET: refuse to follow.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// poolTransport sends each request to a healthy endpoint of an upstream,
// and takes an endpoint it cannot connect to out of rotation at once.
type poolTransport struct {
	up *upstream.Upstream
}

// RoundTrip implements http.RoundTripper.
func (p *poolTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	target, err := p.up.Pick()
	if err != nil {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, err
	}
	out := r.Clone(r.Context())
	out.URL.Scheme, out.URL.Host, out.Host = target.Scheme, target.Host, ""
	resp, err := p.up.Transport().RoundTrip(out)
	var opErr *net.OpError
	if err != nil && errors.As(err, &opErr) && opErr.Op == "dial" {
		p.up.Report(target, err)
	}
	return resp, err
}
