package validation

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// object parses a YAML manifest into an unstructured object, with numbers
// as int64 the way the registry's JSON decoder produces them.
func object(t *testing.T, manifest string) *unstructured.Unstructured {
	t.Helper()
	data, err := yaml.YAMLToJSON([]byte(manifest))
	if err != nil {
		t.Fatalf("bad test manifest: %v", err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(data); err != nil {
		t.Fatalf("bad test manifest: %v", err)
	}
	return obj
}

// removed as an edit's value deletes the field.
type removedType struct{}

var removed = removedType{}

// edit is one change to a test object: path is dotted, with [i] for a list
// element ("spec.containers[0].image").
type edit struct {
	path  string
	value any
}

// with returns a copy of base with the edits applied.
func with(t *testing.T, base *unstructured.Unstructured, edits ...edit) *unstructured.Unstructured {
	t.Helper()
	obj := base.DeepCopy()
	for _, e := range edits {
		parent, last := walk(t, obj.Object, e.path, true)
		if e.value == removed {
			delete(parent, last)
		} else {
			parent[last] = e.value
		}
	}
	data, err := json.Marshal(obj.Object)
	if err != nil {
		t.Fatalf("edit: %v", err)
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON(data); err != nil {
		t.Fatalf("edit: %v", err)
	}
	return out
}

// get returns the value at path, or nil.
func get(t *testing.T, obj *unstructured.Unstructured, path string) any {
	t.Helper()
	parent, last := walk(t, obj.Object, path, false)
	if parent == nil {
		return nil
	}
	return parent[last]
}

// walk follows path to the map holding its last segment. With create it
// makes missing maps on the way; without it a missing step gives nil.
func walk(t *testing.T, m map[string]any, path string, create bool) (map[string]any, string) {
	t.Helper()
	segs := strings.Split(path, ".")
	for _, seg := range segs[:len(segs)-1] {
		name, index := splitIndex(t, seg)
		next, ok := m[name]
		if !ok && create && index < 0 {
			next = map[string]any{}
			m[name] = next
		}
		if index >= 0 {
			list, _ := next.([]any)
			if index >= len(list) {
				if create {
					t.Fatalf("path %s: index out of range", path)
				}
				return nil, ""
			}
			next = list[index]
		}
		child, ok := next.(map[string]any)
		if !ok {
			if create {
				t.Fatalf("path %s: %s is not an object", path, seg)
			}
			return nil, ""
		}
		m = child
	}
	return m, segs[len(segs)-1]
}

// splitIndex splits "name[3]" into name and 3; index is -1 without one.
func splitIndex(t *testing.T, seg string) (string, int) {
	name, rest, ok := strings.Cut(seg, "[")
	if !ok {
		return seg, -1
	}
	i, err := strconv.Atoi(strings.TrimSuffix(rest, "]"))
	if err != nil {
		t.Fatalf("bad index in %q", seg)
	}
	return name, i
}

// validationCase is one row of a validation table: want lists the errors as
// kubectl's prefix shows them, "field: Type", in any order.
type validationCase struct {
	name string
	obj  *unstructured.Unstructured
	old  *unstructured.Unstructured
	want []string
}

// runValidation runs each case through validate.
func runValidation(t *testing.T, validate func(obj, old *unstructured.Unstructured) field.ErrorList, cases []validationCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := summarize(validate(tc.obj, tc.old))
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("errors:\n got  %q\n want %q\nfull: %v", got, want, validate(tc.obj, tc.old))
			}
		})
	}
}

// summarize renders errors as sorted "field: Type" strings.
func summarize(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Field+": "+e.Type.String())
	}
	slices.Sort(out)
	return out
}

// defaultCase is one row of a defaulting table: after defaulting obj, each
// path in want holds its value (nil: absent).
type defaultCase struct {
	name string
	obj  *unstructured.Unstructured
	want map[string]any
}

// runDefaults runs each case through def.
func runDefaults(t *testing.T, def func(*unstructured.Unstructured), cases []defaultCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.obj.DeepCopy()
			def(obj)
			for path, want := range tc.want {
				if got := get(t, obj, path); !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %#v, want %#v", path, got, want)
				}
			}
		})
	}
}
