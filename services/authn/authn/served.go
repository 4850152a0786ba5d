package authn

import "github.com/kubesplit/kubesplit/pkg/metrics"

// served is what authn serves, the only resources its request metrics
// name: its group's resources, as its discovery lists them, and the
// service accounts' token subresource (TokenRequest).
func served() (metrics.ResourceSet, error) {
	rs, err := metrics.ResourcesOf(authenticationResources())
	if err != nil {
		return nil, err
	}
	return metrics.NewResourceSet(append(rs, metrics.Resource{Version: "v1", Resource: "serviceaccounts", Subresource: "token"})...), nil
}
