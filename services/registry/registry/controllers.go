package registry

import (
	"context"
	"log/slog"

	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller"
)

// runControllers runs the housekeeping controllers until ctx ends; each
// holds a Lease, so with several replicas only one runs it.
func runControllers(ctx context.Context, cfg *rest.Config) {
	if err := controller.Run(ctx, controller.Config{REST: cfg}); err != nil && ctx.Err() == nil {
		slog.Error("controllers stopped", "err", err)
	}
}
