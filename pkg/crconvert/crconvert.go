// Package crconvert converts custom resources between the versions of
// their CRD as kube-apiserver does: strategy None rewrites apiVersion;
// strategy Webhook asks the CRD's conversion webhook with a
// ConversionReview (apiextensions.k8s.io/v1, the only version spoken).
// The registry converts what it stores and serves; admission what a
// webhook matched through another version of the resource is sent.
package crconvert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// Config is what a CRD says of its conversion.
type Config struct {
	// CRD is the CRD's name, for errors.
	CRD string
	// Webhook is its conversion webhook; nil for strategy None.
	Webhook *Webhook
}

// Webhook is a CRD's spec.conversion.webhook.
type Webhook struct {
	// URL is the webhook's url, or its service's address.
	URL      string
	CABundle []byte
	// ReviewVersions are its conversionReviewVersions.
	ReviewVersions []string
}

// Converter converts one CRD's objects.
type Converter struct {
	crd    string
	client *webhook.Client // nil: strategy None
}

// New is the converter cfg says; an error when its webhook speaks no
// ConversionReview version this server does, or its CA bundle is not one.
func New(cfg Config) (*Converter, error) {
	c := &Converter{crd: cfg.CRD}
	w := cfg.Webhook
	if w == nil {
		return c, nil
	}
	if !slices.Contains(w.ReviewVersions, "v1") {
		return nil, fmt.Errorf("the conversion webhook speaks none of the ConversionReview versions this server does (v1), only %v",
			w.ReviewVersions)
	}
	hc, err := webhook.NewCAClient(w.CABundle)
	if err != nil {
		return nil, fmt.Errorf("the conversion webhook's %w", err)
	}
	if c.client, err = webhook.NewClient(webhook.Config{URL: w.URL, HTTPClient: hc}, 0); err != nil {
		return nil, err
	}
	return c, nil
}

// review is a ConversionReview, as much of it as a converter reads and
// writes.
type review struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Request    *request  `json:"request,omitempty"`
	Response   *response `json:"response,omitempty"`
}

type request struct {
	UID               types.UID         `json:"uid"`
	DesiredAPIVersion string            `json:"desiredAPIVersion"`
	Objects           []json.RawMessage `json:"objects"`
}

type response struct {
	UID              types.UID         `json:"uid"`
	ConvertedObjects []json.RawMessage `json:"convertedObjects"`
	Result           metav1.Status     `json:"result"`
}

// Convert is obj at apiVersion. Through a webhook, which may change labels
// and annotations besides the object's content, the rest of metadata is
// kept as it was, as kube keeps it; a webhook that fails or answers amiss
// is an internal error naming the CRD.
func (c *Converter) Convert(ctx context.Context, obj map[string]any, apiVersion string) (map[string]any, error) {
	if c.client == nil {
		out := maps.Clone(obj)
		out["apiVersion"] = apiVersion
		return out, nil
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	uid := uuid.NewUUID()
	in := &review{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview",
		Request: &request{UID: uid, DesiredAPIVersion: apiVersion, Objects: []json.RawMessage{raw}}}
	answer := &review{}
	if _, err := c.client.Post(ctx, in, answer); err != nil {
		return nil, c.failed(err)
	}
	out, err := converted(answer, uid, apiVersion)
	if err != nil {
		return nil, c.failed(err)
	}
	keepMetadata(out, obj)
	return out, nil
}

// converted checks a webhook's answer and returns its one object.
func converted(answer *review, uid types.UID, apiVersion string) (map[string]any, error) {
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
	if err := json.Unmarshal(resp.ConvertedObjects[0], &out); err != nil {
		return nil, err
	}
	if got, _ := out["apiVersion"].(string); got != apiVersion {
		return nil, fmt.Errorf("invalid converted object: apiVersion %q, expected %q", got, apiVersion)
	}
	return out, nil
}

func (c *Converter) failed(err error) error {
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
