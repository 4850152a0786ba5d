package storage

import (
	"encoding/json"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The cached encoding leads with apiVersion and kind, holds the same
// content as encoding/json's, and gives a list the object without its type
// by slicing, as kube lists built-in kinds.
func TestEncodingLeadsWithTypeAndSlicesItOff(t *testing.T) {
	for _, c := range []struct {
		name, in, withoutType string
	}{
		{"typed", `{"data":{"a":"b"},"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x"}}`, `{"data":{"a":"b"},"metadata":{"name":"x","resourceVersion":"7"}}`},
		{"sorted before apiVersion", `{"addressType":"IPv4","kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1","metadata":{"name":"x"}}`, `{"addressType":"IPv4","metadata":{"name":"x","resourceVersion":"7"}}`},
		{"no kind", `{"apiVersion":"v1","metadata":{"name":"x"}}`, `{"apiVersion":"v1","metadata":{"name":"x","resourceVersion":"7"}}`},
		{"quote in kind", `{"apiVersion":"v1","kind":"a\"b","metadata":{"name":"x"}}`, `{"apiVersion":"v1","kind":"a\"b","metadata":{"name":"x","resourceVersion":"7"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := map[string]any{}
			if err := json.Unmarshal([]byte(c.in), &m); err != nil {
				t.Fatal(err)
			}
			obj, err := NewObject(&unstructured.Unstructured{Object: m}, 7)
			if err != nil {
				t.Fatal(err)
			}
			var got, want map[string]any
			if err := json.Unmarshal(obj.JSON, &got); err != nil {
				t.Fatalf("%s: %v", obj.JSON, err)
			}
			plain, _ := json.Marshal(m)
			_ = json.Unmarshal(plain, &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("encoded %s, want the content of %s", obj.JSON, plain)
			}
			if without := "{" + string(obj.FieldsWithoutType()); without != c.withoutType {
				t.Errorf("without type: %s, want %s", without, c.withoutType)
			}
			if !obj.unchanged(&unstructured.Unstructured{Object: m}) {
				t.Error("the same object reads as changed")
			}
		})
	}
}
