package printers

import "testing"

func TestDefaultTables(t *testing.T) {
	obj := decode(t, `{"metadata":{"name":"limits","creationTimestamp":"2024-03-05T06:07:08Z"}}`)
	for name, cols := range map[string][]Column{
		"Default": Default,
	} {
		t.Run(name, func(t *testing.T) {
			if defs := Definitions(cols); len(defs) != 2 || defs[1].Name != "Created At" || defs[1].Type != "date" {
				t.Fatalf("columns = %+v, want Name and Created At (date)", defs)
			}
			assertCells(t, cols, obj, map[string]any{"Name": "limits", "Created At": "2024-03-05T06:07:08Z"})
		})
	}
	// Kube prints an unset creation time as the zero time.
	assertCells(t, Default, decode(t, `{"metadata":{"name":"x"}}`), map[string]any{"Created At": "0001-01-01T00:00:00Z"})
}
