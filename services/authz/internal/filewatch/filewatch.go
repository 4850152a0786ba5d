// Package filewatch follows policy files: it reads them, hands their
// contents to a loader, and hands them again whenever any of them changes.
// It polls the contents rather than waiting on inotify, so a file replaced
// by a rename (an editor's save, a ConfigMap volume's symlink swap) is seen
// as surely as one written in place, and a change is seen within one
// interval.
package filewatch

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"
)

// DefaultInterval is how often the files are read: often enough that a
// change of policy reaches the aggregator's cache well within 100 ms.
const DefaultInterval = 25 * time.Millisecond

// LoadFunc takes the files' contents, in the order of their paths. An
// error leaves the previous policy in force.
type LoadFunc func(contents [][]byte) error

// Watch reads paths and loads them once; an unreadable file or a load that
// fails is returned, so that a bad policy stops the start. Then, until ctx
// ends, it reads them every interval and loads them again when any
// changed; onLoad (may be nil) is called after every load that succeeded
// there, and failures are logged, the old policy kept.
func Watch(ctx context.Context, paths []string, interval time.Duration, load LoadFunc, onLoad func(), log *slog.Logger) error {
	contents, err := read(paths)
	if err != nil {
		return err
	}
	if err := load(contents); err != nil {
		return err
	}
	go follow(ctx, paths, interval, contents, load, onLoad, log)
	return nil
}

// follow is Watch's polling loop.
func follow(ctx context.Context, paths []string, interval time.Duration, last [][]byte, load LoadFunc, onLoad func(), log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		contents, err := read(paths)
		if err != nil {
			// A file being replaced may be missing for a moment; the
			// next read sees the new one.
			continue
		}
		if same(contents, last) {
			continue
		}
		last = contents
		if err := load(contents); err != nil {
			log.Error("policy file changed but was not loaded; the previous policy stays", "files", paths, "err", err)
			continue
		}
		log.Info("policy file reloaded", "files", paths)
		if onLoad != nil {
			onLoad()
		}
	}
}

// read returns the contents of paths.
func read(paths []string) ([][]byte, error) {
	out := make([][]byte, len(paths))
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("reading policy file: %w", err)
		}
		out[i] = b
	}
	return out, nil
}

// same tells whether a and b hold the same contents.
func same(a, b [][]byte) bool {
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
