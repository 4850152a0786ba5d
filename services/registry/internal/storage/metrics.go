package storage

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are a backend's measurements, under kube-apiserver's names: the
// latency of the etcd calls requests make, and how many objects each
// resource holds. Each backend has its own, so that several in one
// process (tests) do not collide.
type metrics struct {
	etcd    *prometheus.HistogramVec
	objects *prometheus.Desc

	mu     sync.Mutex
	stores map[*Store]struct{} // the stores served, for the object count
}

func newMetrics() *metrics {
	return &metrics{
		etcd: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "etcd_request_duration_seconds",
			Help: "Etcd request latency in seconds for each operation and object type.",
			// kube's buckets, so that its dashboards and SLOs read ours.
			Buckets: []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60},
		}, []string{"operation", "group", "resource"}),
		objects: prometheus.NewDesc("apiserver_storage_objects",
			"Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
			[]string{"resource"}, nil),
		stores: map[*Store]struct{}{},
	}
}

// RegisterMetrics adds the backend's metrics to r.
func (b *Backend) RegisterMetrics(r prometheus.Registerer) error {
	if err := r.Register(b.metrics.etcd); err != nil {
		return err
	}
	return r.Register(b.metrics)
}

// Describe implements prometheus.Collector for the object counts.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) { ch <- m.objects }

// Collect counts each resource's objects in a cache at scrape time, -1
// while no cache of it is filled, as kube reports a count it could not
// fetch. A resource may have several stores at once (a custom resource
// has one per served version, all over the same keys, and a replaced
// store lives until it is closed): it is reported once, since a repeated
// series fails the whole scrape.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	counts := map[string]float64{}
	m.mu.Lock()
	for s := range m.stores {
		gr := s.groupResource().String()
		if s.Ready() {
			counts[gr] = float64(s.cache.len())
		} else if _, ok := counts[gr]; !ok {
			counts[gr] = -1
		}
	}
	m.mu.Unlock()
	for gr, count := range counts {
		ch <- prometheus.MustNewConstMetric(m.objects, prometheus.GaugeValue, count, gr)
	}
}

func (m *metrics) add(s *Store) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stores[s] = struct{}{}
}

func (m *metrics) remove(s *Store) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.stores, s)
}

// etcdTimers are one store's etcd latency histograms, one per operation,
// resolved once so that a request pays no label lookup.
type etcdTimers struct {
	create, get, list, update, delete prometheus.Observer
}

func (m *metrics) timers(group, resource string) etcdTimers {
	of := func(op string) prometheus.Observer { return m.etcd.WithLabelValues(op, group, resource) }
	return etcdTimers{create: of("create"), get: of("get"), list: of("list"), update: of("update"), delete: of("delete")}
}

// since observes the time from start on o: defer since(o, time.Now()).
// A store built without a backend (tests) has no timers.
func since(o prometheus.Observer, start time.Time) {
	if o != nil {
		o.Observe(time.Since(start).Seconds())
	}
}
