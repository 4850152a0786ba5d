package revision

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	var got []int64
	collect := func(rev int64) error { got = append(got, rev); return nil }
	if err := Read(strings.NewReader("{\"revision\":3}\n{\"revision\":4}\n"), collect); !errors.Is(err, io.EOF) {
		t.Errorf("clean end: %v, want io.EOF", err)
	}
	if len(got) != 2 || got[0] != 3 || got[1] != 4 {
		t.Errorf("read %v, want [3 4]", got)
	}
	got = nil
	if err := Read(strings.NewReader("{\"revision\":5}\n{}\n{\"revision\":6}\n"), collect); !errors.Is(err, ErrBadLine) {
		t.Errorf("malformed line: %v, want ErrBadLine", err)
	}
	if len(got) != 1 {
		t.Errorf("read %v past a malformed line", got)
	}
	stop := errors.New("stop")
	if err := Read(strings.NewReader("{\"revision\":1}\n"), func(int64) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("callback error: %v, want it returned", err)
	}
}
