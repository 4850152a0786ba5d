package aggregator

import (
	"github.com/spf13/pflag"

	"github.com/kubesplit/kubesplit/services/aggregator/internal/filters"
)

// AddEndpointFlags binds to cfg kube-apiserver's flags of how a replica is
// listed in the kubernetes Service's endpoints, so that the aggregator's
// command and the fused binary offer them alike.
func AddEndpointFlags(fs *pflag.FlagSet, cfg *Config) {
	fs.StringVar(&cfg.AdvertiseAddress, "advertise-address", "",
		"IP address this replica is advertised at in the kubernetes Service's endpoints; empty means the bind address, "+
			"or the host's first non-loopback address when the bind address is unspecified (a loopback one advertises nothing)")
	fs.StringVar(&cfg.EndpointReconcilerType, "endpoint-reconciler-type", EndpointReconcilerLease,
		"lease: keep a Lease in kube-system from which the registry lists this replica in the kubernetes Service's endpoints; none: do not")
	fs.DurationVar(&cfg.EndpointLeaseDuration, "endpoint-lease-duration", DefaultEndpointLeaseDuration,
		"how long this replica's endpoint lease lasts unless renewed (renewed every two thirds of it)")
}

// AddConcurrencyFlags registers kube-apiserver's flags bounding the
// requests served at once, with kube's defaults, on cfg.
func AddConcurrencyFlags(fs *pflag.FlagSet, cfg *Config) {
	fs.IntVar(&cfg.MaxRequestsInflight, "max-requests-inflight", filters.DefaultMaxRequestsInFlight,
		"non-mutating requests served at once (0 no limit); with priority and fairness, part of the seats it shares out")
	fs.IntVar(&cfg.MaxMutatingRequestsInflight, "max-mutating-requests-inflight", filters.DefaultMaxMutatingRequestsInFlight,
		"mutating requests served at once (0 no limit); with priority and fairness, part of the seats it shares out")
	fs.BoolVar(&cfg.EnablePriorityAndFairness, "enable-priority-and-fairness", true,
		"serve requests by the cluster's FlowSchemas and PriorityLevelConfigurations (API Priority and Fairness) instead of the two max-inflight limits")
}
