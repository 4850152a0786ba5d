package aggregator

import "github.com/spf13/pflag"

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
