package registry

import (
	"context"

	"k8s.io/client-go/rest"
)

// runControllers runs the housekeeping controllers until ctx ends.
func runControllers(ctx context.Context, cfg *rest.Config) {}
