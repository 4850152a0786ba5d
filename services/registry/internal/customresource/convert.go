package customresource

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubesplit/kubesplit/pkg/crconvert"
)

// newConverter is a CRD's conversion webhook as a converter; nil when the
// CRD converts by rewriting apiVersion (strategy None), which the store
// does itself.
func newConverter(crd *apiextensionsv1.CustomResourceDefinition) (*crconvert.Converter, error) {
	if conv := crd.Spec.Conversion; conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter {
		return nil, nil
	}
	return crconvert.ForCRD(crd)
}
