package registry

import (
	"context"
	"log/slog"

	"github.com/kubesplit/kubesplit/services/registry/internal/customresource"
	"github.com/kubesplit/kubesplit/services/registry/internal/openapi"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// serveCustomResources starts serving the resources CRDs define, following
// the CRDs in this replica's own store, and keeps docs describing them.
func (s *Server) serveCustomResources(ctx context.Context, backend *storage.Backend, docs *openapi.Service) *customresource.Serving {
	for _, st := range s.stores {
		if info := st.Info(); info.Group == "apiextensions.k8s.io" && info.Resource == "customresourcedefinitions" {
			cr := customresource.NewServingNotify(backend, s.handler, st, nil, documentsUpdater(ctx, docs))
			go cr.Run(ctx)
			return cr
		}
	}
	return nil
}

// documentsUpdater rebuilds the OpenAPI documents in the background with
// the latest custom resources, so that serving a CRD never waits for them;
// a change arriving during a rebuild is taken up after it, intermediate
// ones skipped.
func documentsUpdater(ctx context.Context, docs *openapi.Service) func([]*resource.Info) {
	latest := make(chan []*resource.Info, 1)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case infos := <-latest:
				if err := docs.Update(append(resource.Builtins(), infos...)); err != nil {
					slog.Error("OpenAPI documents not updated for custom resources", "err", err)
				}
			}
		}
	}()
	// Called by one goroutine at a time, so the slot it empties stays
	// free for its own send.
	return func(infos []*resource.Info) {
		select {
		case <-latest:
		default:
		}
		latest <- infos
	}
}

// discoverable lists what discovery shows: the built-in resources and the
// custom resources of established CRDs.
func (s *Server) discoverable() func() []*resource.Info {
	builtins := resource.Builtins()
	return func() []*resource.Info {
		if s.customResources == nil {
			return builtins
		}
		return append(builtins[:len(builtins):len(builtins)], s.customResources.Resources()...)
	}
}
