package controllertest

import (
	"context"
	"testing"
)

// Run's function is stopped, and has returned, by the time the test that
// started it is over.
func TestRunStopsWithTheTest(t *testing.T) {
	started, returned := make(chan struct{}), make(chan struct{})
	t.Run("inner", func(t *testing.T) {
		Run(t, func(ctx context.Context) error {
			close(started)
			<-ctx.Done()
			close(returned)
			return ctx.Err()
		})
		<-started
	})
	select {
	case <-returned:
	default:
		t.Fatal("the function was still running after its test ended")
	}
}
