package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Stages times the calls a service makes to the other stages (the
// aggregator to authn, authz and the registry, the registry to admission):
// where a split request spends its time between the services.
type Stages struct {
	duration *prometheus.HistogramVec
}

// NewStages registers the stage call histogram on r.
func NewStages(r prometheus.Registerer) *Stages {
	s := &Stages{duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "kubesplit_stage_request_duration_seconds",
		Help: "Latency of calls to other kubesplit stages, until the response headers arrived, by stage and HTTP status code (\"error\" when no response came).",
		// Finer than the request buckets: a stage call on a healthy
		// network takes well under a millisecond to a few.
		Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
	}, []string{"stage", "code"})}
	r.MustRegister(s.duration)
	return s
}

// Transport times each round trip rt makes to stage. A nil s leaves rt
// as it is.
func (s *Stages) Transport(stage string, rt http.RoundTripper) http.RoundTripper {
	if s == nil {
		return rt
	}
	return &stageTransport{next: rt, duration: s.duration.MustCurryWith(prometheus.Labels{"stage": stage})}
}

type stageTransport struct {
	next     http.RoundTripper
	duration prometheus.ObserverVec
}

func (t *stageTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(r)
	code := "error"
	if err == nil {
		code = strconv.Itoa(resp.StatusCode)
	}
	t.duration.WithLabelValues(code).Observe(time.Since(start).Seconds())
	return resp, err
}
