package kubernetesservice

import (
	"cmp"
	"log/slog"
	"maps"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/kubesplit/kubesplit/pkg/endpointlease"
)

// liveEndpoints are the endpoints of the leases still held at now, each
// once, and the time the first of them lapses (zero with none).
func liveEndpoints(leases []*coordinationv1.Lease, now time.Time, log *slog.Logger) ([]endpointlease.Endpoint, time.Time) {
	seen := map[endpointlease.Endpoint]bool{}
	var next time.Time
	for _, l := range leases {
		if !endpointlease.Live(l, now) {
			continue
		}
		e, err := endpointlease.Parse(l)
		if err != nil {
			log.Debug("ignoring endpoint lease", "err", err)
			continue
		}
		seen[e] = true
		if exp := endpointlease.Expiry(l); next.IsZero() || exp.Before(next) {
			next = exp
		}
	}
	live := slices.SortedFunc(maps.Keys(seen), func(a, b endpointlease.Endpoint) int {
		return cmp.Or(a.Address.Compare(b.Address), cmp.Compare(a.Port, b.Port))
	})
	return live, next
}

// servedBy is the port the Service targets and the addresses serving it.
// kube requires every API server to serve the same port, and its
// Endpoints hold one subset; should replicas differ, the port most of them
// serve (the lowest on a tie) wins, and the others are left out.
func servedBy(live []endpointlease.Endpoint, log *slog.Logger) (port int32, addrs []string) {
	count := map[int32]int{}
	for _, e := range live {
		count[e.Port]++
		if port == 0 || count[e.Port] > count[port] || (count[e.Port] == count[port] && e.Port < port) {
			port = e.Port
		}
	}
	for _, e := range live {
		if e.Port != port {
			log.Warn("API server serves another port than the others; left out of the kubernetes endpoints",
				"endpoint", e.String(), "port", port)
			continue
		}
		addrs = append(addrs, e.Address.String())
	}
	return port, addrs
}
