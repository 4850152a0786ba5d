package storage

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

func podOn(t testing.TB, name, node string) *Object {
	t.Helper()
	o, err := NewObject(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": "ns", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"nodeName": node, "containers": []any{map[string]any{"name": "c", "image": "i"}}},
	}}, 7)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// Kubelets watch pods by spec.nodeName: each matcher sees its own node's
// pods only, whichever matcher asked about the shared object first, and
// the labels still apply.
func TestFieldSelectorSharedObject(t *testing.T) {
	pods := builtin(t, "pods")
	pod := podOn(t, "p", "node-1")
	for _, c := range []struct {
		label, field string
		match        bool
	}{
		{"", "spec.nodeName=node-2", false},
		{"", "spec.nodeName=node-1", true},
		{"app=db", "spec.nodeName=node-1", false},
		{"", "spec.nodeName!=node-1", false},
		{"app=web", "spec.nodeName=node-1,metadata.name=p", true},
	} {
		lbl, err := labels.Parse(c.label)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Selector{Label: lbl, Field: fields.ParseSelectorOrDie(c.field)}.matcher(pods)
		if err != nil {
			t.Fatal(err)
		}
		if got := m(pod); got != c.match {
			t.Errorf("label %q field %q: %v, want %v", c.label, c.field, got, c.match)
		}
	}
}

// BenchmarkFieldSelectedEvent is one pod event matched against a hundred
// kubelets' watches (spec.nodeName).
func BenchmarkFieldSelectedEvent(b *testing.B) {
	pods := builtin(&testing.T{}, "pods")
	var matchers []func(*Object) bool
	for i := range 100 {
		m, err := Selector{Field: fields.OneTermEqualSelector("spec.nodeName", fmt.Sprintf("node-%d", i))}.matcher(pods)
		if err != nil {
			b.Fatal(err)
		}
		matchers = append(matchers, m)
	}
	b.ReportAllocs()
	for b.Loop() {
		pod := podOn(b, "p", "node-7")
		n := 0
		for _, m := range matchers {
			if m(pod) {
				n++
			}
		}
		if n != 1 {
			b.Fatalf("%d matches", n)
		}
	}
}
