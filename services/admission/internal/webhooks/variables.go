package webhooks

import (
	"fmt"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/celenv"
)

// celVariables are the match conditions' object, oldObject and request,
// as kube declares them: the objects as JSON values (null when absent) and
// the AdmissionRequest the webhook would receive, without its objects.
func celVariables(a *admission.Attributes) (map[string]any, error) {
	object, err := celenv.JSONValue(a.Object.Raw)
	if err != nil {
		return nil, fmt.Errorf("object: %w", err)
	}
	oldObject, err := celenv.JSONValue(a.OldObject.Raw)
	if err != nil {
		return nil, fmt.Errorf("oldObject: %w", err)
	}
	request, err := celenv.RequestValue(a)
	if err != nil {
		return nil, fmt.Errorf("request: %w", err)
	}
	// params, namespaceObject and variables are declared in the shared
	// environment but not a webhook's: null, as kube leaves params.
	return map[string]any{
		celenv.Object: object, celenv.OldObject: oldObject, celenv.Request: request,
		celenv.Params: nil, celenv.NamespaceObject: nil, celenv.Variables: map[string]any{},
	}, nil
}
