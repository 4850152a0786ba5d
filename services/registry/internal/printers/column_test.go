package printers

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// tables are every exported table with the headers kubectl prints for it
// (wide ones included), in kube's order.
var tables = map[string]struct {
	cols    []Column
	headers string
}{
	"APIService":               {APIService, "Name Service Available Age"},
	"CustomResourceDefinition": {CustomResourceDefinition, "Name|Scope|Versions|Created At|Group|Kind|ShortNames|Established"},
	"Default":                  {Default, "Name|Created At"},
}

func TestTableHeaders(t *testing.T) {
	for kind, tc := range tables {
		t.Run(kind, func(t *testing.T) {
			sep := " "
			if strings.Contains(tc.headers, "|") {
				sep = "|"
			}
			var got []string
			for _, d := range Definitions(tc.cols) {
				got = append(got, d.Name)
				if d.Description == "" || d.Type == "" {
					t.Errorf("column %s lacks a type or description", d.Name)
				}
				if (d.Name == "Name") != (d.Format == "name") {
					t.Errorf("column %s has format %q", d.Name, d.Format)
				}
			}
			if want := strings.Split(tc.headers, sep); !reflect.DeepEqual(got, want) {
				t.Errorf("headers = %q, want %q", got, want)
			}
			if kind != "Event" && tc.cols[0].Name != "Name" {
				t.Errorf("first column is %s, want Name", tc.cols[0].Name)
			}
		})
	}
}

// TestCellsNilSafe feeds every table objects that lack every field or hold
// the wrong types, which must still give one cell a column.
func TestCellsNilSafe(t *testing.T) {
	garbage := map[string]any{}
	for _, key := range []string{"metadata", "spec", "status", "data", "webhooks", "subjects", "roleRef",
		"involvedObject", "series", "source", "secrets", "type", "count", "message", "eventTime"} {
		garbage[key] = "not what you expect"
	}
	nullFields := map[string]any{"metadata": nil, "spec": map[string]any{"containers": []any{nil, 3}}, "status": nil}
	objs := []*unstructured.Unstructured{nil, {}, {Object: map[string]any{}}, {Object: garbage}, {Object: nullFields}}
	for kind, tc := range tables {
		for i, obj := range objs {
			if cells := Cells(tc.cols, obj); len(cells) != len(tc.cols) {
				t.Errorf("%s object %d: %d cells for %d columns", kind, i, len(cells), len(tc.cols))
			}
		}
	}
}

func TestRows(t *testing.T) {
	objs := []*unstructured.Unstructured{
		decode(t, `{"metadata":{"name":"a"}}`),
		decode(t, `{"metadata":{"name":"b"}}`),
	}
	rows := Rows(Default, objs)
	if len(rows) != 2 || rows[0].Cells[0] != "a" || rows[1].Cells[0] != "b" {
		t.Fatalf("rows = %+v", rows)
	}
	if rows[0].Object.Raw != nil || rows[0].Object.Object != nil {
		t.Errorf("row object set: %+v", rows[0].Object)
	}
}
