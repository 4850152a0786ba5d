package audit

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"

	"gopkg.in/natefinch/lumberjack.v2"
)

// DefaultBufferSize is how many events may wait for the writer, kube's
// default for its batching backend.
const DefaultBufferSize = 10000

// FileConfig says where the log goes.
type FileConfig struct {
	// Path is the log file; "-" is standard output.
	Path string
	// MaxSizeMB rotates the file when it reaches this size; zero never.
	MaxSizeMB int
	// MaxBackups is how many rotated files are kept; zero keeps all.
	MaxBackups int
	// MaxAgeDays removes rotated files older than this; zero never.
	MaxAgeDays int
	// BufferSize bounds the events waiting to be written; zero is
	// DefaultBufferSize.
	BufferSize int
	Log        *slog.Logger
}

// Backend writes events as JSON lines from a bounded buffer, in a goroutine
// of its own.
type Backend struct {
	events  chan *Event
	out     io.WriteCloser
	log     *slog.Logger
	dropped atomic.Uint64
	written atomic.Uint64
	once    sync.Once
	done    chan struct{}
}

// NewFileBackend opens the log and starts its writer.
func NewFileBackend(cfg FileConfig) *Backend {
	var out io.WriteCloser = nopCloser{os.Stdout}
	if cfg.Path != "-" {
		out = &lumberjack.Logger{Filename: cfg.Path, MaxSize: cfg.MaxSizeMB, MaxBackups: cfg.MaxBackups, MaxAge: cfg.MaxAgeDays}
		if cfg.MaxSizeMB == 0 {
			// lumberjack's zero means 100 MB; kube's means never.
			out.(*lumberjack.Logger).MaxSize = 1 << 20
		}
	}
	return newBackend(out, cfg.BufferSize, cfg.Log)
}

func newBackend(out io.WriteCloser, size int, log *slog.Logger) *Backend {
	if size <= 0 {
		size = DefaultBufferSize
	}
	if log == nil {
		log = slog.Default()
	}
	b := &Backend{events: make(chan *Event, size), out: out, log: log, done: make(chan struct{})}
	go b.run()
	return b
}

// Record queues ev; when the buffer is full it drops ev and counts it, so
// that no request waits for the log.
func (b *Backend) Record(ev *Event) {
	select {
	case b.events <- ev:
	default:
		if n := b.dropped.Add(1); n&(n-1) == 0 {
			// At powers of two: a full buffer is reported without flooding.
			b.log.Warn("audit buffer full: events dropped", "dropped", n)
		}
	}
}

// Dropped is how many events were dropped because the buffer was full.
func (b *Backend) Dropped() uint64 { return b.dropped.Load() }

// Written is how many events were written.
func (b *Backend) Written() uint64 { return b.written.Load() }

// Close writes what is queued, then closes the log. Record must not be
// called after.
func (b *Backend) Close() {
	b.once.Do(func() { close(b.events) })
	<-b.done
}

func (b *Backend) run() {
	defer close(b.done)
	w := bufio.NewWriter(b.out)
	enc := json.NewEncoder(w)
	for ev := range b.events {
		if err := enc.Encode(ev); err != nil {
			b.log.Error("writing an audit event", "err", err)
			continue
		}
		b.written.Add(1)
		if len(b.events) == 0 {
			// Flush whenever the queue is empty: the file is current
			// within one event's time when the server is idle.
			if err := w.Flush(); err != nil {
				b.log.Error("writing the audit log", "err", err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		b.log.Error("writing the audit log", "err", err)
	}
	if err := b.out.Close(); err != nil {
		b.log.Error("closing the audit log", "err", err)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
