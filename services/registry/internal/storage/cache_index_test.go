package storage

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const testPrefix = "/registry/core/configmaps/"

// filledCache is a cache holding perNS configmaps in each of namespaces.
func filledCache(t testing.TB, namespaces []string, perNS int) *cache {
	c := newCache(nil, testPrefix)
	objects := map[string]*Object{}
	for _, ns := range namespaces {
		for i := range perNS {
			name := fmt.Sprintf("cm-%05d", i)
			obj, err := NewObject(&unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": ns}}}, 1)
			if err != nil {
				t.Fatal(err)
			}
			objects[testPrefix+ns+"/"+name] = obj
		}
	}
	c.objects, c.dirs = objects, indexOf(objects)
	return c
}

// A list in one namespace looks at that namespace's objects only, in key
// order; across namespaces, at all of them; an empty namespace at none.
// The index follows deletes.
func TestListReadsOnlyItsNamespace(t *testing.T) {
	c := filledCache(t, []string{"a", "b", "c"}, 50)
	looked := 0
	count := func(*Object) bool { looked++; return true }

	got, _ := c.list(testPrefix+"b/", count)
	if looked != 50 || len(got) != 50 || got[0].Namespace() != "b" || got[0].Name() != "cm-00000" ||
		!slices.IsSortedFunc(got, func(x, y *Object) int { return strings.Compare(x.Name(), y.Name()) }) {
		t.Errorf("namespace b: looked at %d, got %d", looked, len(got))
	}
	looked = 0
	if got, _ := c.list(testPrefix, count); looked != 150 || len(got) != 150 {
		t.Errorf("all namespaces: looked at %d, got %d", looked, len(got))
	}
	looked = 0
	if got, _ := c.list(testPrefix+"empty/", count); looked != 0 || len(got) != 0 || c.any(testPrefix+"empty/") {
		t.Errorf("empty namespace: looked at %d, got %d", looked, len(got))
	}
	if !c.any(testPrefix) || !c.any(testPrefix+"a/cm-0") || c.any(testPrefix+"a/nope") {
		t.Error("any across namespaces, or by a key prefix, is wrong")
	}
	c.dirs.remove(testPrefix + "b/cm-00000")
	delete(c.objects, testPrefix+"b/cm-00000")
	if got, _ := c.list(testPrefix+"b/", func(*Object) bool { return true }); len(got) != 49 || !c.any(testPrefix+"b/") {
		t.Errorf("after a delete: %d", len(got))
	}
}

// BenchmarkNamespaceList lists 100 configmaps of one namespace with none
// or 100,000 of the resource in other namespaces: the same cost.
func BenchmarkNamespaceList(b *testing.B) {
	for _, others := range []int{0, 1000} {
		namespaces := []string{"mine"}
		for i := range others {
			namespaces = append(namespaces, fmt.Sprintf("other-%04d", i))
		}
		c := filledCache(b, namespaces, 100)
		b.Run(fmt.Sprintf("others=%d", others*100), func(b *testing.B) {
			for b.Loop() {
				if got, _ := c.list(testPrefix+"mine/", func(*Object) bool { return true }); len(got) != 100 {
					b.Fatal(len(got))
				}
			}
		})
	}
}
