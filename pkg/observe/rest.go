package observe

import "k8s.io/client-go/rest"

// DelegateTo is the Delegate of a service that reaches the API with rc
// (its --kubeconfig).
func DelegateTo(rc *rest.Config) (Delegate, error) {
	client, err := rest.HTTPClientFor(rc)
	if err != nil {
		return Delegate{}, err
	}
	u, _, err := rest.DefaultServerUrlFor(rc)
	if err != nil {
		return Delegate{}, err
	}
	return Delegate{URL: u.String(), Client: client}, nil
}
