package kubetype

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
)

// The price of kube's type code on one ConfigMap write: the conversions
// to the internal version and back around kube's create strategy and its
// validation.
func BenchmarkConfigMapCreate(b *testing.B) {
	k := New(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, configmap.Strategy, nil)
	ctx := WithRequest(context.Background(), Request{Verb: "create", Version: "v1", Resource: "configmaps", Namespace: "ns", User: "u"})
	data := map[string]any{}
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		data[k] = "a value of some 128 bytes ....................................................................................."
	}
	b.ReportAllocs()
	for b.Loop() {
		u := object(b, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns","labels":{"app":"x"}}}`)
		u.Object["data"] = data
		if err := k.PrepareForCreate(ctx, u); err != nil {
			b.Fatal(err)
		}
		if errs, _, err := k.Validate(ctx, "", u, nil); err != nil || len(errs) > 0 {
			b.Fatal(err, errs)
		}
	}
}
