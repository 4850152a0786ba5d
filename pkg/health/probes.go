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
// those and ready too, as kube's readiness includes its liveness. A ready
// check named as a live one takes its place on /readyz: that is how a
// Hook is served, remembered on /livez and current on /readyz.
func Probes(live, ready []Check) func(http.Handler) http.Handler {
	live = append([]Check{Ping}, live...)
	handlers := map[string]http.Handler{}
	for _, ep := range endpoints {
		checks := live
		if ep == "/readyz" {
			checks = readiness(live, ready)
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

// readiness is live with the ready checks of the same names in their
// places, then the other ready checks.
func readiness(live, ready []Check) []Check {
	byName := map[string]Check{}
	for _, c := range ready {
		byName[c.Name] = c
	}
	out := make([]Check, 0, len(live)+len(ready))
	replaced := map[string]bool{}
	for _, c := range live {
		if r, ok := byName[c.Name]; ok {
			c, replaced[c.Name] = r, true
		}
		out = append(out, c)
	}
	for _, c := range ready {
		if !replaced[c.Name] {
			out = append(out, c)
		}
	}
	return out
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
