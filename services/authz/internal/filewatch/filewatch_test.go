package filewatch

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// write replaces path's content through a rename.
func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path+".tmp", []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

func TestWatchRefusesAtStart(t *testing.T) {
	dir := t.TempDir()
	if err := Watch(t.Context(), []string{filepath.Join(dir, "absent")}, time.Millisecond,
		func([][]byte) error { return nil }, nil, quiet); err == nil {
		t.Error("Watch of a missing file = nil, want an error")
	}
	path := filepath.Join(dir, "bad")
	write(t, path, "bad")
	refused := errors.New("refused")
	if err := Watch(t.Context(), []string{path}, time.Millisecond,
		func([][]byte) error { return refused }, nil, quiet); !errors.Is(err, refused) {
		t.Errorf("Watch of a file the loader refuses = %v, want its error", err)
	}
}

// TestWatchReloads: a change is loaded and reported, a change the loader
// refuses is not reported, and nothing is loaded after ctx ends.
func TestWatchReloads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy")
	write(t, path, "one")
	var current atomic.Value
	var loads atomic.Int32
	load := func(c [][]byte) error {
		if string(c[0]) == "broken" {
			return errors.New("broken")
		}
		current.Store(string(c[0]))
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := Watch(ctx, []string{path}, time.Millisecond, load, func() { loads.Add(1) }, quiet); err != nil {
		t.Fatal(err)
	}
	if current.Load() != "one" || loads.Load() != 0 {
		t.Fatalf("after start: %v, %d reports; want one, 0", current.Load(), loads.Load())
	}
	write(t, path, "two")
	waitFor(t, func() bool { return current.Load() == "two" && loads.Load() == 1 })
	write(t, path, "broken")
	time.Sleep(50 * time.Millisecond)
	if current.Load() != "two" || loads.Load() != 1 {
		t.Errorf("after a refused change: %v, %d reports; want two, 1", current.Load(), loads.Load())
	}
	cancel()
	time.Sleep(20 * time.Millisecond)
	write(t, path, "three")
	time.Sleep(50 * time.Millisecond)
	if current.Load() != "two" {
		t.Errorf("loaded %v after ctx ended", current.Load())
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
	}
}
