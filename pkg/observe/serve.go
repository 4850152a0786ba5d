package observe

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/metrics"
)

// Endpoints returns middleware that serves Handler(reg) for its paths,
// each request first passing guard, and hands every other request to the
// next handler. A nil guard is for a chain that has authorized the
// request already (the aggregator's).
func Endpoints(reg prometheus.Gatherer, guard func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	own := Handler(reg)
	if guard != nil {
		own = guard(own)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if Serves(r.URL.Path) {
				own.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// Backend wraps a backend's routes for observation: every request is
// counted in kube's request metrics under component, naming only the
// resources served serves (see metrics.Catalog), and /metrics and
// /debug/pprof are served from reg to the readers api vouches for (see
// Guard; nil api lets nobody read them). reg may carry the backend's own
// metrics too; nil means a registry of the standard collectors alone.
func Backend(component string, api *rest.Config, reg *prometheus.Registry, served metrics.Catalog, routes http.Handler) (http.Handler, error) {
	if reg == nil {
		reg = metrics.NewRegistry()
	}
	var d Delegate
	if api != nil {
		var err error
		if d, err = DelegateTo(api); err != nil {
			return nil, err
		}
	}
	guard, err := Guard(d)
	if err != nil {
		return nil, err
	}
	return metrics.NewRequests(reg, component, served).Middleware(Endpoints(reg, guard)(routes)), nil
}
