package health

import (
	"net/http"
	"strings"
)

// endpoints are the three health endpoints kube serves.
var endpoints = []string{"/healthz", "/livez", "/readyz"}

// Probes returns middleware that answers the health endpoints itself,
// before anything asks who the caller is, and hands every other request
// to the next handler. /healthz and /livez run Ping and live; /readyz runs
// those and ready too, as kube's readiness includes its liveness.
func Probes(live, ready []Check) func(http.Handler) http.Handler {
	live = append([]Check{Ping}, live...)
	handlers := map[string]http.Handler{}
	for _, ep := range endpoints {
		checks := live
		if ep == "/readyz" {
			checks = append(append([]Check{}, live...), ready...)
		}
		handlers[ep] = Handler(ep, checks...)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if h, ok := handlers[endpointOf(r.URL.Path)]; ok {
				h.ServeHTTP(w, r)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// endpointOf is the health endpoint path p is (or is a check of), or "".
func endpointOf(p string) string {
	for _, ep := range endpoints {
		if p == ep || strings.HasPrefix(p, ep+"/") {
			return ep
		}
	}
	return ""
}
