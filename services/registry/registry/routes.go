package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"time"

	"github.com/go-chi/chi/v5"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/health"
	"github.com/kubesplit/kubesplit/pkg/recovery"
	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/tracing"
)

// KubernetesVersion is the Kubernetes release whose API the registry
// serves: that of the k8s.io/api module it is built with.
const KubernetesVersion = "v1.37.2"

// routes is the registry's HTTP surface. Live means etcd answers; ready
// also needs every cache filled: informer-sync says so of them all, and
// two checks say it of a part, for the aggregator's health endpoints to
// list under kube's names: storage-readiness (kube's
// poststarthook/storage-readiness) of the built-in resources' watch
// caches, crds-synced (kube's poststarthook/crd-informer-synced) of the
// custom resources served as the CRDs in the store say.
func (s *Server) routes(disc, openapi http.Handler) http.Handler {
	r := chi.NewRouter()
	// The server span first, so that a panic's answer is in it too.
	r.Use(tracing.Handler, recovery.Middleware(nil))
	// chi's own refusals carry no body; clients expect a Status.
	r.NotFound(func(w http.ResponseWriter, req *http.Request) { apierror.Write(w, apierror.NotFoundPath(req.Method)) })
	r.MethodNotAllowed(func(w http.ResponseWriter, req *http.Request) {
		apierror.Write(w, apierrors.NewMethodNotSupported(schema.GroupResource{}, req.Method))
	})
	etcdCheck := health.Check{Name: "etcd", Func: s.pingEtcd}
	cacheCheck := health.Check{Name: "informer-sync", Func: func(context.Context) error {
		if !s.storesReady() {
			return errors.New("caches not filled")
		}
		return nil
	}}
	storageCheck := health.Check{Name: "storage-readiness", Func: s.storageReady}
	crdCheck := health.Check{Name: "crds-synced", Func: s.crdsSynced}
	// Everything but the health checks (and /metrics and /debug/pprof,
	// which observe.Backend serves) needs the aggregator's assertion: the
	// aggregator authorizes non-resource URLs (/version, /openapi) as kube
	// does, and nobody may go around it.
	guarded := r.With(s.trust.require)
	guarded.Get("/version", serveVersion)
	guarded.Handle("/openapi/*", openapi)
	api := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if request.InfoOf(req).IsResourceRequest {
			s.handler.ServeHTTP(w, req)
			return
		}
		disc.ServeHTTP(w, req)
	})
	for _, p := range []string{"/api", "/api/*", "/apis", "/apis/*"} {
		guarded.Handle(p, api)
	}
	return health.Probes([]health.Check{etcdCheck}, []health.Check{cacheCheck, storageCheck, crdCheck})(r)
}

// storageReady fails while a built-in resource's cache is not filled.
func (s *Server) storageReady(context.Context) error {
	var waiting []string
	for _, st := range s.stores {
		if !st.Ready() {
			info := st.Info()
			waiting = append(waiting, schema.GroupResource{Group: info.Group, Resource: info.Resource}.String())
		}
	}
	if len(waiting) > 0 {
		return fmt.Errorf("caches not filled: %d resources, %s first", len(waiting), waiting[0])
	}
	return nil
}

// crdsSynced fails until the custom resources served are those the CRDs
// in the store define.
func (s *Server) crdsSynced(context.Context) error {
	switch {
	case s.customResources == nil:
		return errors.New("no CustomResourceDefinition storage")
	case !s.customResources.Synced():
		return errors.New("custom resources not yet served as the CRDs say")
	}
	return nil
}

// pingEtcd checks that etcd answers within a second.
func (s *Server) pingEtcd(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, err := s.client.Get(ctx, "/registry/.health")
	return err
}

func serveVersion(w http.ResponseWriter, _ *http.Request) {
	info := version.Info{
		Major: "1", Minor: "37", GitVersion: KubernetesVersion + "-kubesplit",
		GoVersion: runtime.Version(), Compiler: runtime.Compiler, Platform: runtime.GOOS + "/" + runtime.GOARCH,
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(info)
}
