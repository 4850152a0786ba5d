package customresource

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// webhookCRD is a CRD converting through url.
func webhookCRD(url string, reviews ...string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "things.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Conversion: &apiextensionsv1.CustomResourceConversion{
			Strategy: apiextensionsv1.WebhookConverter,
			Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: reviews,
				ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &url}}}}}
}

// A CRD's conversion becomes a converter only for strategy Webhook (the
// store rewrites apiVersion itself for None), and one whose webhook
// speaks no review version this server does is refused.
func TestNewConverter(t *testing.T) {
	if c, err := newConverter(&apiextensionsv1.CustomResourceDefinition{}); c != nil || err != nil {
		t.Errorf("strategy None: %v, %v", c, err)
	}
	if c, err := newConverter(webhookCRD("https://example.com", "v1")); c == nil || err != nil {
		t.Errorf("a v1 webhook: %v, %v", c, err)
	}
	if _, err := newConverter(webhookCRD("https://example.com", "v1beta1")); err == nil {
		t.Error("a webhook speaking only v1beta1 reviews was accepted")
	}
}
