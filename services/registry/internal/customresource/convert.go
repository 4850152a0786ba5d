package customresource

import (
	"errors"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubesplit/kubesplit/pkg/crconvert"
	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// newConverter is a CRD's conversion webhook as a converter; nil when the
// CRD converts by rewriting apiVersion (strategy None), which the store
// does itself.
func newConverter(crd *apiextensionsv1.CustomResourceDefinition) (*crconvert.Converter, error) {
	conv := crd.Spec.Conversion
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter {
		return nil, nil
	}
	if conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
		return nil, errors.New("webhook conversion without a webhook")
	}
	cc := conv.Webhook.ClientConfig
	return crconvert.New(crconvert.Config{CRD: crd.Name, Webhook: &crconvert.Webhook{
		URL: webhookURL(cc), CABundle: cc.CABundle, ReviewVersions: conv.Webhook.ConversionReviewVersions}})
}

// webhookURL is where the webhook is: its url, or its service's DNS name
// (which resolves inside a cluster).
func webhookURL(cc *apiextensionsv1.WebhookClientConfig) string {
	if cc.URL != nil {
		return *cc.URL
	}
	return webhook.ServiceURL(cc.Service.Namespace, cc.Service.Name, cc.Service.Port, cc.Service.Path)
}
