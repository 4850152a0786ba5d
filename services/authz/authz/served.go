package authz

import "github.com/kubesplit/kubesplit/pkg/metrics"

// served is what authz serves, the only resources its request metrics
// name: the reviews its discovery lists.
func served() (metrics.ResourceSet, error) {
	rs, err := metrics.ResourcesOf(authorizationResources())
	if err != nil {
		return nil, err
	}
	return metrics.NewResourceSet(rs...), nil
}
