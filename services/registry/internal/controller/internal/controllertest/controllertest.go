// Package controllertest holds what the controllers' tests share: a quiet
// logger, and a way to run a controller for exactly the length of a test.
package controllertest

import (
	"context"
	"log/slog"
	"testing"
)

// Log is a logger that drops everything: a controller's routine logs would
// bury the output of a failing test.
func Log() *slog.Logger { return slog.New(slog.DiscardHandler) }

// Run calls run in the background and, when t ends, cancels its context and
// waits for it to return, so that no controller outlives its test and
// touches the fakes of the next one. What run returns once cancelled is
// only its context's error, and is dropped.
func Run(t testing.TB, run func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}
