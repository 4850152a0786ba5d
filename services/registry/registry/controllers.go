package registry

import (
	"context"
	"log/slog"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller"
)

// controllerStopWait bounds how long Close waits for the controllers to
// hand back their leases.
const controllerStopWait = 10 * time.Second

// startControllers runs the housekeeping controllers, each holding a Lease
// so that with several replicas only one runs it. The returned function
// stops them and waits until they have let their leases go.
func startControllers(parent context.Context, cfg *rest.Config, names []string) (stop func()) {
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := controller.Run(ctx, controller.Config{REST: cfg, Controllers: names}); err != nil && ctx.Err() == nil {
			slog.Error("controllers stopped", "err", err)
		}
	}()
	return func() {
		cancel()
		select {
		case <-done:
		case <-time.After(controllerStopWait):
			slog.Warn("controllers did not stop in time")
		}
	}
}
