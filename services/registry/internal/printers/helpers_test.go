package printers

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// testNow is the pinned clock of every test; fixtures give times relative
// to it.
var testNow = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// pinClock makes ages deterministic for the duration of the test.
func pinClock(t *testing.T) {
	t.Helper()
	old := now
	now = func() time.Time { return testNow }
	t.Cleanup(func() { now = old })
}

// ago is the RFC 3339 time d before testNow.
func ago(d time.Duration) string {
	return testNow.Add(-d).Format(time.RFC3339)
}

// decode parses a JSON fixture as the registry holds objects: numbers come
// out as float64, exercising the accessors' conversions.
func decode(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("bad fixture: %v\n%s", err, doc)
	}
	return &unstructured.Unstructured{Object: m}
}

// cellsCase is an object, as JSON, and some of the cells its row must have.
type cellsCase struct {
	name string
	obj  string
	want map[string]any
}

// assertCellsCases runs assertCells on each case in a subtest of its own,
// with the clock pinned so that ages are fixed.
func assertCellsCases(t *testing.T, cols []Column, cases []cellsCase) {
	t.Helper()
	pinClock(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assertCells(t, cols, decode(t, tc.obj), tc.want)
		})
	}
}

// assertCells checks the cells of the named columns (as kube spells them)
// for obj, and that the row has one cell a column.
func assertCells(t *testing.T, cols []Column, obj *unstructured.Unstructured, want map[string]any) {
	t.Helper()
	cells := Cells(cols, obj)
	if len(cells) != len(cols) {
		t.Fatalf("got %d cells for %d columns", len(cells), len(cols))
	}
	byName := map[string]any{}
	for i, c := range cols {
		byName[c.Name] = cells[i]
	}
	for name, w := range want {
		got, ok := byName[name]
		if !ok {
			t.Errorf("no column %q", name)
			continue
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %#v, want %#v", name, got, w)
		}
	}
}
