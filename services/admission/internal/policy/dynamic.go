package policy

import (
	"errors"

	"k8s.io/client-go/dynamic"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// dynamicClient is deps' dynamic client, which params of any kind are read
// with; without one (a service given a client but no REST configuration),
// a binding with params is a configuration error.
func dynamicClient(deps plugin.Deps) (dynamic.Interface, error) {
	if deps.Dynamic == nil {
		return nil, errors.New("no dynamic client to read params with")
	}
	return deps.Dynamic, nil
}
