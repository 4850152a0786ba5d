package plugin

import (
	"encoding/json"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

func object(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// The patch carries only what the plugin changed, not the defaults that
// before and after share, and applies to the object as it was sent: a
// change under a parent the client left out adds the parent whole.
func TestPatchFor(t *testing.T) {
	for _, c := range []struct {
		name, sent, before, after, want string
	}{
		{"nothing changed", `{"a":1}`, `{"a":1,"d":2}`, `{"a":1,"d":2}`, `{"a":1}`},
		{"a field set", `{"spec":{"x":1}}`, `{"spec":{"x":1,"d":0}}`, `{"spec":{"x":1,"d":0,"p":5}}`, `{"spec":{"x":1,"p":5}}`},
		{"a changed default under a missing parent", `{"spec":{}}`, `{"spec":{"sc":{"d":0}}}`, `{"spec":{"sc":{"d":1}}}`, `{"spec":{"sc":{"d":1}}}`},
		{"a list replaced", `{"l":[1]}`, `{"l":[1]}`, `{"l":[1,2]}`, `{"l":[1,2]}`},
		{"a field removed", `{"a":1,"b":2}`, `{"a":1,"b":2}`, `{"a":1}`, `{"a":1}`},
		{"an escaped key", `{"m":{}}`, `{"m":{}}`, `{"m":{"a/b~c":"v"}}`, `{"m":{"a/b~c":"v"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := PatchFor([]byte(c.sent), object(t, c.before), object(t, c.after))
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.Result()
			if err != nil {
				t.Fatal(err)
			}
			out := []byte(c.sent)
			if len(res.Patch) > 0 {
				if out, err = admission.ApplyPatch(out, res.Patch); err != nil {
					t.Fatalf("patch %s: %v", res.Patch, err)
				}
			}
			var got, want any
			_ = json.Unmarshal(out, &got)
			_ = json.Unmarshal([]byte(c.want), &want)
			if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
				t.Errorf("patched %s, want %s (patch %s)", g, w, res.Patch)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
