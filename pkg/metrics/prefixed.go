package metrics

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Prefixed gathers from g only the metric families whose names start
// with prefix. It lets a process serve the few families kube's libraries
// register in their global registry (API Priority and Fairness's, say)
// beside its own, without the Go and process collectors both registries
// carry, which Gatherers would refuse as duplicates.
func Prefixed(g prometheus.Gatherer, prefix string) prometheus.Gatherer {
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		all, err := g.Gather()
		kept := all[:0]
		for _, mf := range all {
			if strings.HasPrefix(mf.GetName(), prefix) {
				kept = append(kept, mf)
			}
		}
		return kept, err
	})
}
