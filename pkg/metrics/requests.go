package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// Requests are kube-apiserver's request metrics.
type Requests struct {
	total     *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	inflight  *prometheus.GaugeVec
	component string
	served    Catalog
}

var requestLabels = []string{"verb", "group", "version", "resource", "subresource", "scope", "component"}

// NewRequests registers the request metrics on r, labelled component. A
// request names its group, version, resource and subresource in them only
// when served serves them (see Catalog); nil serves nothing, for a service
// whose paths are not API resources.
func NewRequests(r prometheus.Registerer, component string, served Catalog) *Requests {
	m := &Requests{
		total: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "apiserver_request_total",
			Help: "Counter of apiserver requests broken out for each verb, group, version, resource, scope, component, and HTTP response code."},
			append(append([]string{}, requestLabels...), "code")),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "apiserver_request_duration_seconds",
			Help:    "Response latency distribution in seconds for each verb, group, version, resource, subresource, scope and component.",
			Buckets: []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60}},
			requestLabels),
		inflight: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "apiserver_current_inflight_requests",
			Help: "Maximal number of currently used inflight request limit of this apiserver per request kind in last second."},
			[]string{"request_kind"}),
	}
	r.MustRegister(m.total, m.duration, m.inflight)
	m.component, m.served = component, served
	return m
}

// Middleware counts and times every request next serves. It reads the
// request info an earlier filter put on the context, or the request.
func (m *Requests) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Attached, so that the stages after this one parse nothing.
		info, r := request.AttachInfo(r)
		// As kube's gauge, which is its in-flight limiter's: watches and
		// other long-running requests are not counted, or one informer
		// would look like load for as long as it runs.
		if !requestinfo.IsLongRunning(info) {
			g := m.inflight.WithLabelValues(inflightKind(info))
			g.Inc()
			defer g.Dec()
		}
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		start := time.Now()
		next.ServeHTTP(sw, r)
		labels := m.labelValues(r, info)
		m.duration.WithLabelValues(labels...).Observe(time.Since(start).Seconds())
		m.total.WithLabelValues(append(labels, strconv.Itoa(sw.code))...).Inc()
	})
}

// inflightKind is kube's request_kind: readOnly or mutating.
func inflightKind(info *requestinfo.Info) string {
	switch info.Verb {
	case "get", "list", "watch":
		return "readOnly"
	}
	return "mutating"
}

// statusWriter notes the status written.
type statusWriter struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.code, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

// Flush passes on, so that watches stream.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
