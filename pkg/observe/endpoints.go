package observe

import (
	"net/http"
	"net/http/pprof"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubesplit/kubesplit/pkg/metrics"
)

// MetricsPath and ProfilePath are the endpoints Handler serves.
const (
	MetricsPath = "/metrics"
	ProfilePath = "/debug/pprof/"
)

// Serves reports whether path is one of Handler's endpoints.
func Serves(path string) bool {
	return path == MetricsPath || path == strings.TrimSuffix(ProfilePath, "/") || strings.HasPrefix(path, ProfilePath)
}

// Handler serves reg at /metrics and the profiles under /debug/pprof/,
// unguarded: put it behind the caller's authorization.
func Handler(reg prometheus.Gatherer) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(MetricsPath, metrics.Handler(reg))
	mux.Handle(strings.TrimSuffix(ProfilePath, "/"), http.RedirectHandler(ProfilePath, http.StatusMovedPermanently))
	mux.HandleFunc(ProfilePath, pprof.Index)
	mux.HandleFunc(ProfilePath+"cmdline", pprof.Cmdline)
	mux.HandleFunc(ProfilePath+"profile", pprof.Profile)
	mux.HandleFunc(ProfilePath+"symbol", pprof.Symbol)
	mux.HandleFunc(ProfilePath+"trace", pprof.Trace)
	return mux
}
