package aggregator

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/metrics"
)

// measurements are the aggregator's metrics, served at /metrics (a
// non-resource URL, authorized as kube authorizes it: system:monitoring
// and cluster-admin may read it).
type measurements struct {
	requests       *metrics.Requests
	authentication *prometheus.CounterVec
	authorization  *prometheus.CounterVec
	handler        http.Handler
}

func newMeasurements() *measurements {
	reg := metrics.NewRegistry()
	m := &measurements{
		requests: metrics.NewRequests(reg, "apiserver"),
		authentication: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "authentication_attempts",
			Help: "Counter of authenticated attempts."}, []string{"result"}),
		authorization: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "authorization_attempts_total",
			Help: "Counter of authorization attempts broken down by result."}, []string{"result"}),
		handler: metrics.Handler(reg),
	}
	reg.MustRegister(m.authentication, m.authorization)
	return m
}

// authenticated counts an authentication's outcome: success, failure
// (401) or error (503).
func (m *measurements) authenticated(_ *http.Request, result string) {
	m.authentication.WithLabelValues(result).Inc()
}

// authorized counts a decision as kube does: allowed, or denied (a
// denial and no opinion alike).
func (m *measurements) authorized(d authz.Decision) {
	result := "denied"
	if d == authz.DecisionAllow {
		result = "allowed"
	}
	m.authorization.WithLabelValues(result).Inc()
}

// withMetricsEndpoint serves /metrics itself and the rest with next.
func withMetricsEndpoint(next, metricsHandler http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			metricsHandler.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}
