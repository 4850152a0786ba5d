package upstream

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// maxHealthBody bounds how much of a health answer is read, so that the
// connection can be reused without trusting the body's size.
const maxHealthBody = 64 << 10

// Check runs one health check on every endpoint, concurrently, and
// records the outcomes: an endpoint is healthy while its HealthPath
// answers 200 within CheckTimeout. It brings back an endpoint that a
// reported connection error had taken out.
func (u *Upstream) Check(ctx context.Context) {
	eps := u.snap.Load().endpoints
	keys := make([]string, len(eps))
	for i, ep := range eps {
		keys[i] = ep.URL.String()
	}
	u.checkAll(ctx, keys)
}

// checkUnhealthy checks the endpoints out of rotation only.
func (u *Upstream) checkUnhealthy(ctx context.Context) {
	var keys []string
	for _, ep := range u.snap.Load().endpoints {
		if !ep.Healthy {
			keys = append(keys, ep.URL.String())
		}
	}
	if len(keys) > 0 {
		u.checkAll(ctx, keys)
	}
}

// probe checks the endpoint at base; nil means healthy.
func (u *Upstream) probe(ctx context.Context, base string) error {
	ctx, cancel := context.WithTimeout(ctx, u.checkTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+u.healthPath, nil)
	if err != nil {
		return err
	}
	for k, vs := range u.healthHeader {
		req.Header[k] = vs
	}
	resp, err := u.transport.RoundTrip(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxHealthBody))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", u.healthPath, resp.Status)
	}
	return nil
}
