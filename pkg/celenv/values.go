package celenv

import (
	"bytes"
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// JSONValue is JSON as CEL sees it, kube's way: maps, lists, strings,
// bools, null, and numbers as int64 when they are whole, so that
// object.spec.replicas == 3 holds; nil for no JSON.
func JSONValue(raw []byte) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("decoding JSON for CEL: %w", err)
	}
	return numbers(v), nil
}

// Value is a Go value (a typed object) as CEL sees it, through its JSON.
func Value(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return JSONValue(raw)
}

// numbers replaces the json.Numbers in v by int64 or float64.
func numbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = numbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = numbers(e)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	}
	return v
}

// RequestValue is CEL's request variable: the AdmissionRequest a webhook
// would receive about a, without the objects (variables of their own).
func RequestValue(a *admission.Attributes) (any, error) {
	dryRun := a.DryRun
	req := admissionv1.AdmissionRequest{
		Kind: a.Kind, Resource: a.Resource, SubResource: a.SubResource,
		RequestKind: &a.RequestKind, RequestResource: &a.RequestResource, RequestSubResource: a.RequestSubResource,
		Name: a.Name, Namespace: a.Namespace, Operation: a.Operation, UserInfo: a.UserInfo,
		DryRun: &dryRun, Options: a.Options,
	}
	if a.RequestResource.Resource == "" {
		req.RequestKind, req.RequestResource, req.RequestSubResource = &a.Kind, &a.Resource, a.SubResource
	}
	return Value(req)
}
