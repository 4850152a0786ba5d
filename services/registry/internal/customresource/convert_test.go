package customresource

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// webhookCRD is a CRD converting through url.
func webhookCRD(url string, reviews ...string) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "things.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Conversion: &apiextensionsv1.CustomResourceConversion{
			Strategy: apiextensionsv1.WebhookConverter,
			Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: reviews,
				ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &url}}}}}
}

// answering is a webhook that edits every review's answer with edit.
func answering(t *testing.T, edit func(*apiextensionsv1.ConversionReview)) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		review := &apiextensionsv1.ConversionReview{}
		_ = json.NewDecoder(r.Body).Decode(review)
		resp := &apiextensionsv1.ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
		for _, raw := range review.Request.Objects {
			obj := map[string]any{}
			_ = json.Unmarshal(raw.Raw, &obj)
			obj["apiVersion"] = review.Request.DesiredAPIVersion
			obj["metadata"] = map[string]any{"name": "renamed", "labels": map[string]any{"converted": "yes"}}
			data, _ := json.Marshal(obj)
			resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: data})
		}
		review.Response = resp
		edit(review)
		_ = json.NewEncoder(w).Encode(review)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestConverter(t *testing.T) {
	obj := func() map[string]any {
		return map[string]any{"apiVersion": "example.com/v1beta1", "kind": "Thing",
			"metadata": map[string]any{"name": "t", "uid": "u1", "labels": map[string]any{"a": "b"}}}
	}
	c, err := newConverter(webhookCRD(answering(t, func(*apiextensionsv1.ConversionReview) {}), "v1beta1", "v1"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.convert(obj(), "example.com/v1")
	if err != nil {
		t.Fatal(err)
	}
	meta := out["metadata"].(map[string]any)
	if out["apiVersion"] != "example.com/v1" || meta["name"] != "t" || meta["uid"] != "u1" || meta["labels"].(map[string]any)["converted"] != "yes" {
		t.Errorf("converted %v: want the new apiVersion and labels, the old name and uid", out)
	}
	for name, edit := range map[string]func(*apiextensionsv1.ConversionReview){
		"uid": func(r *apiextensionsv1.ConversionReview) { r.Response.UID = "other" },
		"failure": func(r *apiextensionsv1.ConversionReview) {
			r.Response.Result = metav1.Status{Status: metav1.StatusFailure, Message: "nope"}
		},
		"count": func(r *apiextensionsv1.ConversionReview) { r.Response.ConvertedObjects = nil },
		"apiVersion": func(r *apiextensionsv1.ConversionReview) {
			r.Response.ConvertedObjects[0].Raw = []byte(`{"apiVersion":"x/v9"}`)
		},
	} {
		c, _ := newConverter(webhookCRD(answering(t, edit), "v1"))
		_, err := c.convert(obj(), "example.com/v1")
		if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "conversion webhook for things.example.com failed") {
			t.Errorf("%s: %v, want an internal error naming the webhook", name, err)
		}
	}
	if _, err := newConverter(webhookCRD("https://example.com", "v1beta1")); err == nil {
		t.Error("a webhook speaking only v1beta1 reviews was accepted")
	}
}
