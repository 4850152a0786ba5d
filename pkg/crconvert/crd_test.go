package crconvert

import (
	"context"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// crd is a CRD converting as conv says.
func crd(conv *apiextensionsv1.CustomResourceConversion) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "things.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Conversion: conv}}
}

// A CRD's spec.conversion picks the converter: its webhook's url is
// called; no conversion, or strategy None, rewrites apiVersion; a webhook
// strategy naming no webhook is refused.
func TestForCRD(t *testing.T) {
	url := answering(t, func(*review) {})
	hooked := crd(&apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"},
			ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &url}}})
	c, err := ForCRD(hooked)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Convert(context.Background(), thing(), "example.com/v1")
	if err != nil || out["metadata"].(map[string]any)["labels"].(map[string]any)["converted"] != "yes" {
		t.Errorf("through the webhook: %v, %v; want its labels", out, err)
	}
	for name, conv := range map[string]*apiextensionsv1.CustomResourceConversion{
		"no conversion": nil,
		"None":          {Strategy: apiextensionsv1.NoneConverter},
	} {
		c, err := ForCRD(crd(conv))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := c.Convert(context.Background(), thing(), "example.com/v1")
		if err != nil || out["apiVersion"] != "example.com/v1" || out["metadata"].(map[string]any)["labels"].(map[string]any)["converted"] != nil {
			t.Errorf("%s: %v, %v; want apiVersion rewritten only", name, out, err)
		}
	}
	for name, conv := range map[string]*apiextensionsv1.CustomResourceConversion{
		"no webhook":   {Strategy: apiextensionsv1.WebhookConverter},
		"no address":   {Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"}, ClientConfig: &apiextensionsv1.WebhookClientConfig{}}},
		"old versions": {Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1beta1"}, ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &url}}},
	} {
		if _, err := ForCRD(crd(conv)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
