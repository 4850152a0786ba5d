package customresource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// converter is a CRD's conversion webhook: it converts one object to
// another version of its kind with a ConversionReview, as kube's webhook
// converter does (only apiextensions.k8s.io/v1 reviews are spoken).
type converter struct {
	crd    string
	client *webhook.Client
}

// newConverter builds the client of a CRD's conversion webhook; nil when
// the CRD converts by rewriting apiVersion (strategy None).
func newConverter(crd *apiextensionsv1.CustomResourceDefinition) (*converter, error) {
	conv := crd.Spec.Conversion
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter {
		return nil, nil
	}
	if conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
		return nil, errors.New("webhook conversion without a webhook")
	}
	v1 := false
	for _, v := range conv.Webhook.ConversionReviewVersions {
		v1 = v1 || v == "v1"
	}
	if !v1 {
		return nil, fmt.Errorf("the conversion webhook speaks none of the ConversionReview versions this server does (v1), only %v",
			conv.Webhook.ConversionReviewVersions)
	}
	cc := conv.Webhook.ClientConfig
	hc, err := webhook.NewCAClient(cc.CABundle)
	if err != nil {
		return nil, fmt.Errorf("the conversion webhook's %w", err)
	}
	client, err := webhook.NewClient(webhook.Config{URL: webhookURL(cc), HTTPClient: hc}, 0)
	if err != nil {
		return nil, err
	}
	return &converter{crd: crd.Name, client: client}, nil
}

// webhookURL is where the webhook is: its url, or its service's DNS name
// (which resolves inside a cluster).
func webhookURL(cc *apiextensionsv1.WebhookClientConfig) string {
	if cc.URL != nil {
		return *cc.URL
	}
	return webhook.ServiceURL(cc.Service.Namespace, cc.Service.Name, cc.Service.Port, cc.Service.Path)
}

// convert asks the webhook for obj at apiVersion. The webhook may change
// labels and annotations besides the object's content; the rest of
// metadata is kept as it was, as kube keeps it.
func (c *converter) convert(obj map[string]any, apiVersion string) (map[string]any, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	uid := uuid.NewUUID()
	review := &apiextensionsv1.ConversionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"},
		Request: &apiextensionsv1.ConversionRequest{UID: uid, DesiredAPIVersion: apiVersion,
			Objects: []runtime.RawExtension{{Raw: raw}}},
	}
	answer := &apiextensionsv1.ConversionReview{}
	if _, err := c.client.Post(context.Background(), review, answer); err != nil {
		return nil, c.failed(err)
	}
	out, err := c.converted(answer, uid, apiVersion)
	if err != nil {
		return nil, c.failed(err)
	}
	keepMetadata(out, obj)
	return out, nil
}

// converted checks a webhook's answer and returns its one object.
func (c *converter) converted(answer *apiextensionsv1.ConversionReview, uid any, apiVersion string) (map[string]any, error) {
	resp := answer.Response
	switch {
	case resp == nil:
		return nil, errors.New("no response")
	case resp.UID != uid:
		return nil, fmt.Errorf("expected response uid %v, got %v", uid, resp.UID)
	case resp.Result.Status != metav1.StatusSuccess:
		return nil, errors.New(resp.Result.Message)
	case len(resp.ConvertedObjects) != 1:
		return nil, fmt.Errorf("expected 1 converted object, got %d", len(resp.ConvertedObjects))
	}
	out := map[string]any{}
	if err := json.Unmarshal(resp.ConvertedObjects[0].Raw, &out); err != nil {
		return nil, err
	}
	if got, _ := out["apiVersion"].(string); got != apiVersion {
		return nil, fmt.Errorf("invalid converted object: apiVersion %q, expected %q", got, apiVersion)
	}
	return out, nil
}

func (c *converter) failed(err error) error {
	return apierrors.NewInternalError(fmt.Errorf("conversion webhook for %s failed: %w", c.crd, err))
}

// keepMetadata restores in out the metadata of in but labels and
// annotations, the only metadata a conversion may change.
func keepMetadata(out, in map[string]any) {
	inMeta, _ := in["metadata"].(map[string]any)
	outMeta, _ := out["metadata"].(map[string]any)
	meta := map[string]any{}
	for k, v := range inMeta {
		meta[k] = v
	}
	for _, k := range []string{"labels", "annotations"} {
		if v, ok := outMeta[k]; ok {
			meta[k] = v
		} else {
			delete(meta, k)
		}
	}
	out["metadata"] = meta
}
