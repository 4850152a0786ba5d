package aggregator

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/component-base/metrics/legacyregistry"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/metrics"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/audit"
)

// measurements are the aggregator's metrics, served at /metrics (a
// non-resource URL, authorized as kube authorizes it: system:monitoring
// and cluster-admin may read it).
type measurements struct {
	registry       *prometheus.Registry
	requests       *metrics.Requests
	authentication *prometheus.CounterVec
	authorization  *prometheus.CounterVec
	stages         *metrics.Stages
	authnCache     *metrics.CacheLookups
	authzCache     *metrics.CacheLookups
}

func newMeasurements() *measurements {
	reg := metrics.NewRegistry()
	m := &measurements{
		registry: reg,
		stages:   metrics.NewStages(reg),
		// kube's name: its token cache is the same concept.
		authnCache: metrics.NewCacheLookups(reg, "authentication_token_cache_request_total",
			"Counter of the authn stage's token cache lookups, by status (hit or miss)."),
		authzCache: metrics.NewCacheLookups(reg, "kubesplit_authorization_cache_request_total",
			"Counter of the authz stage's decision cache lookups, by status (hit or miss)."),
		authentication: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "authentication_attempts",
			Help: "Counter of authenticated attempts."}, []string{"result"}),
		authorization: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "authorization_attempts_total",
			Help: "Counter of authorization attempts broken down by result."}, []string{"result"}),
	}
	reg.MustRegister(m.authentication, m.authorization)
	return m
}

// gatherer is what /metrics serves: the aggregator's own metrics and kube's
// apiserver_flowcontrol_* ones, which kube's API Priority and Fairness
// registers in kube's global registry.
func (m *measurements) gatherer() prometheus.Gatherer {
	return prometheus.Gatherers{m.registry, metrics.Prefixed(legacyregistry.DefaultGatherer, "apiserver_flowcontrol_")}
}

// countRequests registers kube's request metrics, which name a request's
// resource only when served serves it: the chain counts requests before
// they are authenticated.
func (m *measurements) countRequests(served metrics.Catalog) {
	m.requests = metrics.NewRequests(m.registry, "apiserver", served)
}

// countAudit exports the audit log's counts under kube's names: events
// written, and events dropped because the buffer was full (kube counts
// those as errors of its "buffered" plugin).
func (m *measurements) countAudit(b *audit.Backend) {
	m.registry.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "apiserver_audit_event_total",
			Help: "Counter of audit events generated and sent to the audit backend."},
			func() float64 { return float64(b.Written()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "apiserver_audit_error_total",
			Help:        "Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.",
			ConstLabels: prometheus.Labels{"plugin": "buffered"}},
			func() float64 { return float64(b.Dropped()) }))
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
