package crconvert

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// answering is a conversion webhook that renames and labels every object
// it converts, its answer then edited by edit.
func answering(t *testing.T, edit func(*review)) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rv := &review{}
		_ = json.NewDecoder(r.Body).Decode(rv)
		resp := &response{UID: rv.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
		for _, raw := range rv.Request.Objects {
			obj := map[string]any{}
			_ = json.Unmarshal(raw, &obj)
			obj["apiVersion"] = rv.Request.DesiredAPIVersion
			obj["metadata"] = map[string]any{"name": "renamed", "labels": map[string]any{"converted": "yes"}}
			data, _ := json.Marshal(obj)
			resp.ConvertedObjects = append(resp.ConvertedObjects, data)
		}
		rv.Response = resp
		edit(rv)
		_ = json.NewEncoder(w).Encode(rv)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func thing() map[string]any {
	return map[string]any{"apiVersion": "example.com/v1beta1", "kind": "Thing",
		"metadata": map[string]any{"name": "t", "uid": "u1", "labels": map[string]any{"a": "b"}}}
}

func through(url string, reviews ...string) Config {
	return Config{CRD: "things.example.com", Webhook: &Webhook{URL: url, ReviewVersions: reviews}}
}

// A webhook converts the object and may change its labels; the rest of
// its metadata is kept. Any answer amiss is an internal error naming the
// CRD's webhook.
func TestWebhookConversion(t *testing.T) {
	c, err := New(through(answering(t, func(*review) {}), "v1beta1", "v1"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Convert(context.Background(), thing(), "example.com/v1")
	if err != nil {
		t.Fatal(err)
	}
	meta := out["metadata"].(map[string]any)
	if out["apiVersion"] != "example.com/v1" || meta["name"] != "t" || meta["uid"] != "u1" || meta["labels"].(map[string]any)["converted"] != "yes" {
		t.Errorf("converted %v: want the new apiVersion and labels, the old name and uid", out)
	}
	for name, edit := range map[string]func(*review){
		"uid":        func(r *review) { r.Response.UID = "other" },
		"failure":    func(r *review) { r.Response.Result = metav1.Status{Status: metav1.StatusFailure, Message: "nope"} },
		"count":      func(r *review) { r.Response.ConvertedObjects = nil },
		"apiVersion": func(r *review) { r.Response.ConvertedObjects[0] = []byte(`{"apiVersion":"x/v9"}`) },
	} {
		c, _ := New(through(answering(t, edit), "v1"))
		_, err := c.Convert(context.Background(), thing(), "example.com/v1")
		if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "conversion webhook for things.example.com failed") {
			t.Errorf("%s: %v, want an internal error naming the webhook", name, err)
		}
	}
	if _, err := New(through("https://example.com", "v1beta1")); err == nil {
		t.Error("a webhook speaking only v1beta1 reviews was accepted")
	}
}

// Strategy None rewrites apiVersion and nothing else, leaving the object
// it was given as it was.
func TestNoneConversion(t *testing.T) {
	c, err := New(Config{CRD: "things.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	in := thing()
	out, err := c.Convert(context.Background(), in, "example.com/v1")
	if err != nil || out["apiVersion"] != "example.com/v1" || out["metadata"].(map[string]any)["name"] != "t" || in["apiVersion"] != "example.com/v1beta1" {
		t.Errorf("converted %v (%v); given %v", out, err, in)
	}
}
