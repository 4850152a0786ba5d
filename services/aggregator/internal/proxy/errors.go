package proxy

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesplit/kubesplit/pkg/apierror"
)

// ErrInvalidConfig is returned by New for a Config it cannot work with.
var ErrInvalidConfig = errors.New("proxy: invalid config")

// ErrDecorate wraps an error of the Decorate hook: the request was not
// sent.
var ErrDecorate = errors.New("proxy: decorating the outgoing request")

// handleError answers a request whose round trip to endpoint failed. out
// is the outgoing request.
func (p *Proxy) handleError(w http.ResponseWriter, out *http.Request, err error) {
	a, ok := attemptFrom(out.Context())
	if !ok {
		a = &attempt{target: &url.URL{}}
	}
	p.log.Warn("proxying failed", "upstream", p.up.Name(), "endpoint", a.target.String(),
		"method", out.Method, "path", out.URL.Path, "sent", a.sent.Load(), "err", err)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.Is(err, ErrDecorate):
		apierror.Write(w, apierrors.NewInternalError(err))
	case errors.As(err, &tooLarge):
		// The client's body went past the aggregator's limit while it was
		// being sent: the backend got it cut short, so it did nothing.
		apierror.Write(w, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", tooLarge.Limit)))
	case !a.sent.Load():
		p.reportUnreachable(out, a, err)
		apierror.Write(w, p.unavailable(err))
	default:
		apierror.Write(w, apierrors.NewTimeoutError(
			fmt.Sprintf("the %s service did not complete the request; whether it took effect is unknown", p.up.Name()), 0))
	}
}

// reportUnreachable takes the endpoint out of rotation, unless the request
// was merely cancelled or out of time (which says nothing about the
// endpoint).
func (p *Proxy) reportUnreachable(out *http.Request, a *attempt, err error) {
	if out.Context().Err() == nil {
		p.up.Report(a.target, err)
	}
}

// unavailable is the 503 for a request that reached no backend: it carries
// Retry-After, so client-go sends it again, writes included.
func (p *Proxy) unavailable(err error) error {
	return apierror.Unavailable(fmt.Sprintf("the %s service is unavailable: %v", p.up.Name(), err), p.retryAfter)
}
