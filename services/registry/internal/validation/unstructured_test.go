package validation

import (
	"reflect"
	"testing"
)

func TestSetDefault(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   map[string]any
		want any
	}{
		{"absent", map[string]any{}, "d"},
		{"null", map[string]any{"k": nil}, "d"},
		{"empty string", map[string]any{"k": ""}, "d"},
		{"set", map[string]any{"k": "user"}, "user"},
		{"zero number kept", map[string]any{"k": int64(0)}, int64(0)},
		{"false kept", map[string]any{"k": false}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setDefault(tc.in, "k", "d")
			if got := tc.in["k"]; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
	setDefault(nil, "k", "d") // must not panic
}

func TestEnsureMap(t *testing.T) {
	m := map[string]any{"obj": map[string]any{"a": "b"}, "null": nil, "str": "x"}
	if got := ensureMap(m, "obj"); got["a"] != "b" {
		t.Errorf("existing object not returned: %v", got)
	}
	if got := ensureMap(m, "null"); got == nil || m["null"] == nil {
		t.Errorf("null not replaced by an object")
	}
	if got := ensureMap(m, "missing"); got == nil || m["missing"] == nil {
		t.Errorf("missing object not created")
	}
	if got := ensureMap(m, "str"); got != nil || m["str"] != "x" {
		t.Errorf("wrong-typed field overwritten: %v", m["str"])
	}
	if got := ensureMap(nil, "x"); got != nil {
		t.Errorf("nil parent gave %v", got)
	}
}
