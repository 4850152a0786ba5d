package metrics

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
)

// CacheLookups counts a cache's hits and misses.
type CacheLookups struct {
	hit, miss prometheus.Counter
}

// NewCacheLookups registers a counter named name, labelled status="hit"
// or "miss", on r.
func NewCacheLookups(r prometheus.Registerer, name, help string) *CacheLookups {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{"status"})
	r.MustRegister(v)
	return &CacheLookups{hit: v.WithLabelValues("hit"), miss: v.WithLabelValues("miss")}
}

// Observe counts one lookup; its signature is the caches' OnLookup hook.
func (c *CacheLookups) Observe(_ context.Context, hit bool) {
	if hit {
		c.hit.Inc()
		return
	}
	c.miss.Inc()
}
