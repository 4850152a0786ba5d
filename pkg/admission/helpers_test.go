package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// errStoreDown stands for an admitter that could not decide.
var errStoreDown = errors.New("policy store down")

// pod is a pod's JSON with the given labels ("k=v" pairs).
func pod(labels ...string) []byte {
	m := map[string]string{}
	for _, kv := range labels {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	obj := map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": "web", "namespace": "team", "labels": m},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}},
	}
	raw, _ := json.Marshal(obj)
	return raw
}

// write is the attributes of op on the pod web in team, made by alice,
// with every field set so that the tests see them cross the wire.
func write(op admissionv1.Operation, object, oldObject []byte) Attributes {
	gvk := metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}
	gvr := metav1.GroupVersionResource{Version: "v1", Resource: "pods"}
	return Attributes{
		Operation:       op,
		Kind:            gvk,
		Resource:        gvr,
		RequestKind:     gvk,
		RequestResource: gvr,
		Name:            "web",
		Namespace:       "team",
		UserInfo: authenticationv1.UserInfo{
			Username: "alice", UID: "u-alice", Groups: []string{"dev", "system:authenticated"},
			Extra: map[string]authenticationv1.ExtraValue{"scopes": {"a", "b"}},
		},
		Object:    runtime.RawExtension{Raw: object},
		OldObject: runtime.RawExtension{Raw: oldObject},
		DryRun:    op == admissionv1.Update,
		Options:   runtime.RawExtension{Raw: options(op)},
	}
}

// options is the options JSON kube sends with op.
func options(op admissionv1.Operation) []byte {
	kind := map[admissionv1.Operation]string{admissionv1.Create: "CreateOptions", admissionv1.Update: "UpdateOptions", admissionv1.Delete: "DeleteOptions"}[op]
	return []byte(`{"apiVersion":"meta.k8s.io/v1","kind":"` + kind + `"}`)
}

// labelsOf reads an object's labels; nil for no object.
func labelsOf(raw []byte) map[string]string {
	var obj struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	return obj.Metadata.Labels
}

// addLabel is a mutating admitter that labels every created or updated
// object key=value, with a JSON patch.
func addLabel(key, value string) Admitter {
	return Mutating(AdmitterFunc(func(_ context.Context, a *Attributes) (*Result, error) {
		if a.Operation != admissionv1.Create && a.Operation != admissionv1.Update {
			return Allow(), nil
		}
		patch := fmt.Sprintf(`[{"op":"add","path":"/metadata/labels/%s","value":%q}]`, key, value)
		return &Result{Allowed: true, Patch: []byte(patch)}, nil
	}))
}

// copyLabel is a mutating admitter that copies label from into label to,
// so it only works on an object a previous admitter labelled.
func copyLabel(from, to string) Admitter {
	return Mutating(AdmitterFunc(func(_ context.Context, a *Attributes) (*Result, error) {
		v, ok := labelsOf(a.Object.Raw)[from]
		if !ok {
			return Deny(422, fmt.Sprintf("no label %s to copy", from)), nil
		}
		patch := fmt.Sprintf(`[{"op":"add","path":"/metadata/labels/%s","value":%q}]`, to, v)
		return &Result{Allowed: true, Patch: []byte(patch)}, nil
	}))
}

// requireLabel is a validating admitter that denies created or updated
// objects without the label.
func requireLabel(key string) Admitter {
	return AdmitterFunc(func(_ context.Context, a *Attributes) (*Result, error) {
		if a.Operation == admissionv1.Delete {
			return Allow(), nil
		}
		if _, ok := labelsOf(a.Object.Raw)[key]; !ok {
			return Deny(403, fmt.Sprintf("label %q is required", key)), nil
		}
		return Allow(), nil
	})
}

// protectDeletes denies deleting an object labelled protected=true, which
// it can only learn from the old object.
var protectDeletes = AdmitterFunc(func(_ context.Context, a *Attributes) (*Result, error) {
	if a.Operation == admissionv1.Delete && labelsOf(a.OldObject.Raw)["protected"] == "true" {
		return Deny(403, "protected objects cannot be deleted"), nil
	}
	return Allow(), nil
})

// warn allows with a warning and audit annotations.
func warn(warning string, annotations map[string]string) Admitter {
	return AdmitterFunc(func(context.Context, *Attributes) (*Result, error) {
		return &Result{Allowed: true, Warnings: []string{warning}, AuditAnnotations: annotations}, nil
	})
}

// patchingValidator is a validating admitter that breaks the contract.
var patchingValidator = AdmitterFunc(func(context.Context, *Attributes) (*Result, error) {
	return &Result{Allowed: true, Patch: []byte(`[{"op":"add","path":"/metadata/labels/x","value":"y"}]`)}, nil
})

// broken cannot decide.
var broken = AdmitterFunc(func(context.Context, *Attributes) (*Result, error) {
	return nil, errStoreDown
})

// recorder remembers the attributes its admitter was asked about.
type recorder struct {
	Admitter
	mu   sync.Mutex
	seen []Attributes
}

func record(a Admitter) *recorder { return &recorder{Admitter: a} }

func (r *recorder) Admit(ctx context.Context, a *Attributes) (*Result, error) {
	r.mu.Lock()
	r.seen = append(r.seen, *a)
	r.mu.Unlock()
	return r.Admitter.Admit(ctx, a)
}

func (r *recorder) phase() Phase { return PhaseOf(r.Admitter) }

func (r *recorder) calls() []Attributes {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Attributes(nil), r.seen...)
}

func mustChain(t *testing.T, as ...Admitter) Admitter {
	t.Helper()
	c, err := Chain(as...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newRemote serves a as an AdmissionReview webhook on 127.0.0.1:0 and
// returns a WebhookClient for it.
func newRemote(t *testing.T, a Admitter) *WebhookClient {
	t.Helper()
	srv := httptest.NewServer(NewAdmissionReviewHandler(a))
	t.Cleanup(srv.Close)
	c, err := NewWebhookClient(WebhookConfig{URL: srv.URL + "/admit", HTTPClient: srv.Client(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sameJSON reports whether two JSON documents are equal as values.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// allowAll allows everything.
var allowAll = AdmitterFunc(func(context.Context, *Attributes) (*Result, error) { return Allow(), nil })
