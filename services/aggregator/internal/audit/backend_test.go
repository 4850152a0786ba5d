package audit

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// blockedLog is a file whose writes wait until released.
type blockedLog struct {
	release chan struct{}
	once    sync.Once
}

func (b *blockedLog) Write(p []byte) (int, error) { <-b.release; return len(p), nil }
func (b *blockedLog) Close() error                { return nil }
func (b *blockedLog) open()                       { b.once.Do(func() { close(b.release) }) }

// A full buffer drops events and counts them; Record never waits.
func TestFullBufferDropsAndCounts(t *testing.T) {
	out := &blockedLog{release: make(chan struct{})}
	b := newBackend(out, 2, nil)
	defer func() { out.open(); b.Close() }()
	for range 50 {
		b.Record(&Event{AuditID: strings.Repeat("x", 5000)})
	}
	// The writer holds one event, the buffer two: the rest is dropped.
	if d := b.Dropped(); d < 47 || d > 48 {
		t.Errorf("dropped %d of 50 with a buffer of 2", d)
	}
}

// The file is rotated at --audit-log-maxsize.
func TestFileRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	b := NewFileBackend(FileConfig{Path: path, MaxSizeMB: 1})
	big := strings.Repeat("y", 64<<10)
	for range 24 { // 1.5 MB
		b.Record(&Event{AuditID: big})
	}
	b.Close()
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("%d files after rotation, want the log and one backup", len(entries))
	}
	if b.Written() != 24 || b.Dropped() != 0 {
		t.Errorf("written %d, dropped %d", b.Written(), b.Dropped())
	}
}
