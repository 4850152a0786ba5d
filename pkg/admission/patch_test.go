package admission

import (
	"errors"
	"testing"
)

func TestApplyPatch(t *testing.T) {
	obj := []byte(`{"metadata":{"labels":{"a":"1"}}}`)
	cases := []struct {
		name          string
		object, patch string
		want          string
		err           error
	}{
		{"adds", string(obj), `[{"op":"add","path":"/metadata/labels/b","value":"2"}]`, `{"metadata":{"labels":{"a":"1","b":"2"}}}`, nil},
		{"no patch", string(obj), ``, string(obj), nil},
		{"null patch", string(obj), `null`, string(obj), nil},
		{"empty patch", string(obj), `[]`, string(obj), nil},
		{"empty patch, no object", ``, `[]`, ``, nil},
		{"no object", ``, `[{"op":"add","path":"/x","value":1}]`, ``, ErrPatchFailed},
		{"missing path", string(obj), `[{"op":"remove","path":"/spec"}]`, ``, ErrPatchFailed},
		{"unknown op", string(obj), `[{"op":"upsert","path":"/x","value":1}]`, ``, ErrPatchFailed},
		{"merge patch", string(obj), `{"metadata":{}}`, ``, ErrInvalidResult},
	}
	for _, c := range cases {
		got, err := ApplyPatch([]byte(c.object), []byte(c.patch))
		if !errors.Is(err, c.err) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.err)
			continue
		}
		if c.err == nil && c.want != "" && !sameJSON(t, got, []byte(c.want)) {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestAppendPatch(t *testing.T) {
	got, err := AppendPatch([]byte(`[{"op":"add","path":"/a","value":1}]`), []byte(`[ {"op":"remove","path":"/a"} ]`))
	if err != nil || string(got) != `[{"op":"add","path":"/a","value":1},{"op":"remove","path":"/a"}]` {
		t.Fatalf("%s, %v", got, err)
	}
}
