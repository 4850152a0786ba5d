package revision

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestParseLine: what Handler writes reads back; a line without a
// revision or not JSON is ErrBadLine rather than revision 0.
func TestParseLine(t *testing.T) {
	b, err := json.Marshal(Line{Revision: 42})
	if err != nil {
		t.Fatal(err)
	}
	if l, err := ParseLine(b); err != nil || l.Revision != 42 {
		t.Fatalf("ParseLine(%s) = %+v, %v; want 42", b, l, err)
	}
	if l, err := ParseLine([]byte(`{"revision":0}`)); err != nil || l.Revision != 0 {
		t.Fatalf("ParseLine(revision 0) = %+v, %v; want 0", l, err)
	}
	for _, bad := range []string{`{}`, `{"rev":3}`, `not json`, `{"revision":"3"}`} {
		if _, err := ParseLine([]byte(bad)); !errors.Is(err, ErrBadLine) {
			t.Errorf("ParseLine(%s) err = %v, want ErrBadLine", bad, err)
		}
	}
}
