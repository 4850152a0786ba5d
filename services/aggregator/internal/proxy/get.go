package proxy

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"net/url"
)

// Get fetches path (which may carry a query) from a healthy endpoint of
// the upstream for the aggregator itself, as discovery does: it is
// decorated like a proxied request, so ctx must carry whatever Decorate
// needs, and a connection error takes the endpoint out of rotation. The
// caller closes the response body.
func (p *Proxy) Get(ctx context.Context, path string) (*http.Response, error) {
	target, err := p.up.Pick()
	if err != nil {
		return nil, err
	}
	ref, err := url.Parse(path)
	if err != nil {
		return nil, fmt.Errorf("proxy: path %q: %w", path, err)
	}
	u := *target
	u.Path, u.RawPath, u.RawQuery = ref.Path, ref.RawPath, ref.RawQuery
	a := &attempt{target: target}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, a.trace()), http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", acceptFrom(ctx))
	p.decorateOut(req, a)
	if a.err != nil {
		return nil, a.err
	}
	resp, err := p.up.Transport().RoundTrip(req)
	if err != nil {
		if !a.sent.Load() {
			p.reportUnreachable(req, a, err)
		}
		return nil, fmt.Errorf("proxy: GET %s from %s: %w", path, p.up.Name(), err)
	}
	return resp, nil
}
