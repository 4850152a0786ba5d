package crconvert

import (
	"errors"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// ForCRD is the converter crd's spec.conversion says: strategy None when
// it names none, else its webhook, at its url or its service's DNS name
// (which resolves inside a cluster).
func ForCRD(crd *apiextensionsv1.CustomResourceDefinition) (*Converter, error) {
	cfg := Config{CRD: crd.Name}
	conv := crd.Spec.Conversion
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter {
		return New(cfg)
	}
	if conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
		return nil, errors.New("webhook conversion without a webhook")
	}
	cc := conv.Webhook.ClientConfig
	cfg.Webhook = &Webhook{CABundle: cc.CABundle, ReviewVersions: conv.Webhook.ConversionReviewVersions}
	switch {
	case cc.URL != nil:
		cfg.Webhook.URL = *cc.URL
	case cc.Service != nil:
		cfg.Webhook.URL = webhook.ServiceURL(cc.Service.Namespace, cc.Service.Name, cc.Service.Port, cc.Service.Path)
	default:
		return nil, errors.New("the conversion webhook has neither a url nor a service")
	}
	return New(cfg)
}
