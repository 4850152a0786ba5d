package filters

import (
	"fmt"
	"net/http"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// Kube-apiserver's defaults, for flags that mirror its own.
const (
	// DefaultMaxRequestsInFlight is --max-requests-inflight's default.
	DefaultMaxRequestsInFlight = 400
	// DefaultMaxMutatingRequestsInFlight is
	// --max-mutating-requests-inflight's default.
	DefaultMaxMutatingRequestsInFlight = 200
)

// MaxInFlightConfig configures an InFlightLimiter.
type MaxInFlightConfig struct {
	// MaxRequests bounds the non-mutating requests served at once: kube's
	// --max-requests-inflight. Zero means no bound.
	MaxRequests int
	// MaxMutating bounds the POST, PUT, PATCH and DELETE requests served at
	// once: kube's --max-mutating-requests-inflight. Zero means no bound.
	MaxMutating int
}

// InFlightLimiter counts the requests being served, reads and writes
// separately, and refuses those beyond a budget. Its counts are kept even
// for a budget without bound, for metrics.
type InFlightLimiter struct {
	readOnly, mutating budget
}

// NewInFlightLimiter returns a limiter with cfg's budgets.
func NewInFlightLimiter(cfg MaxInFlightConfig) (*InFlightLimiter, error) {
	if cfg.MaxRequests < 0 || cfg.MaxMutating < 0 {
		return nil, fmt.Errorf("%w: max in flight: negative limit (%d read-only, %d mutating)",
			ErrInvalidConfig, cfg.MaxRequests, cfg.MaxMutating)
	}
	l := &InFlightLimiter{}
	l.readOnly.max = int64(cfg.MaxRequests)
	l.mutating.max = int64(cfg.MaxMutating)
	return l, nil
}

// Inflight returns how many requests of each kind hold a place right now.
func (l *InFlightLimiter) Inflight() (readOnly, mutating int) {
	return int(l.readOnly.n.Load()), int(l.mutating.n.Load())
}

// WithMaxInFlight returns a middleware that serves a request only while its
// budget in l has room, as kube's WithMaxInFlightLimit does; otherwise it
// answers 429 TooManyRequests with Retry-After: 1, which client-go honours
// by waiting and retrying. Long-running requests (requestinfo.IsLongRunning) are neither
// counted nor refused: a watch holds its place for minutes and would starve
// everything else.
//
// Unlike kube, system:masters is not exempt: this filter runs before
// authentication, so the caller is not known yet. A nil l limits nothing.
func WithMaxInFlight(l *InFlightLimiter) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if l == nil {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			info, r := request.AttachInfo(r)
			if requestinfo.IsLongRunning(info) {
				next.ServeHTTP(w, r)
				return
			}
			b := &l.readOnly
			if isMutating(r.Method) {
				b = &l.mutating
			}
			if !b.acquire() {
				apierror.Write(w, apierrors.NewTooManyRequests("Too many requests, please try again later.", 1))
				return
			}
			defer b.release()
			next.ServeHTTP(w, r)
		})
	}
}

// isMutating tells writes from reads by method. Kube goes by verb and
// counts everything but get, list and watch as mutating, which for resource
// requests is the same split; for the rest it would also count HEAD and
// OPTIONS, which change nothing.
func isMutating(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// budget is one kind's count and bound; max 0 means unbounded.
type budget struct {
	max int64
	n   atomic.Int64
}

// acquire takes a place if there is one. It compares and swaps rather than
// adding and undoing, so a request that is turned away never briefly
// inflates the count and turns away another that would have fitted.
func (b *budget) acquire() bool {
	for {
		n := b.n.Load()
		if b.max > 0 && n >= b.max {
			return false
		}
		if b.n.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

func (b *budget) release() { b.n.Add(-1) }
