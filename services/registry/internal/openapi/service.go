package openapi

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/cached"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// The paths the documents are served at.
const (
	PathV2       = "/openapi/v2"
	PathV3       = "/openapi/v3"
	pathV3Prefix = PathV3 + "/"
)

// Service serves the OpenAPI documents of a set of resources. kube-openapi's
// handlers do the serving: content negotiation (JSON or protobuf), ETags,
// the hashed v3 URLs clients cache forever, and building and rendering each
// document only when it is first asked for after a change.
type Service struct {
	mu sync.Mutex // serializes Update
	v2 *handler.OpenAPIService
	v3 *handler3.OpenAPIService

	v2Handler http.Handler
	// v3Names are the group-versions under /openapi/v3/, so that an unknown
	// one gets 404 rather than the empty answer handler3 gives.
	v3Names atomic.Pointer[map[string]bool]
}

// New prepares the documents of the given resources. Each is built when
// first asked for, not here: a registry starts without that work, and
// a document nobody reads (v2, which kubectl reads only from a server
// without v3) is never built.
func New(resources []*resource.Info) (*Service, error) {
	c, err := newCatalog(resources)
	if err != nil {
		return nil, err
	}
	s := &Service{v2: handler.NewOpenAPIServiceLazy(c.lazyV2()), v3: handler3.NewOpenAPIService()}
	var h capture
	s.v2.RegisterOpenAPIVersionedService(PathV2, &h)
	s.v2Handler = h.handler
	s.v3Names.Store(&map[string]bool{})
	s.installV3(c.lazyV3())
	return s, nil
}

// Update replaces the documents when resources are added or removed
// (custom resources). A table the documents cannot be made of is refused;
// should building them fail later, the documents served before stay in
// place (kube-openapi's handlers serve the last one built).
func (s *Service) Update(resources []*resource.Info) error {
	c, err := newCatalog(resources)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.v2.UpdateSpecLazy(c.lazyV2())
	s.installV3(c.lazyV3())
	return nil
}

// installV3 replaces the v3 documents with docs. A document whose content
// did not change keeps its hash, so clients keep their cached copy.
func (s *Service) installV3(docs map[string]cached.Value[*spec3.OpenAPI]) {
	names := make(map[string]bool, len(docs))
	for name, doc := range docs {
		s.v3.UpdateGroupVersionLazy(name, doc)
		names[name] = true
	}
	old := s.v3Names.Swap(&names)
	for name := range *old {
		if !names[name] {
			s.v3.DeleteGroupVersion(name)
		}
	}
}

// Register adds the handlers to mux: /openapi/v2, /openapi/v3 and, as a
// prefix in http.ServeMux's sense, /openapi/v3/. A router that matches
// patterns exactly, such as chi, should route /openapi/* to the Service
// itself instead (it is an http.Handler): r.Handle("/openapi/*", svc).
func (s *Service) Register(mux interface{ Handle(string, http.Handler) }) {
	mux.Handle(PathV2, s)
	mux.Handle(PathV3, s)
	mux.Handle(pathV3Prefix, s)
}

// ServeHTTP serves /openapi/v2, /openapi/v3 and /openapi/v3/<group-version>,
// and 404 for any other path.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case path == PathV2:
		s.v2Handler.ServeHTTP(w, r)
	case path == PathV3:
		s.v3.HandleDiscovery(w, r)
	case strings.HasPrefix(path, pathV3Prefix) && (*s.v3Names.Load())[strings.TrimPrefix(path, pathV3Prefix)]:
		s.v3.HandleGroupVersion(w, r)
	default:
		apierror.Write(w, apierrors.NewGenericServerResponse(http.StatusNotFound, r.Method, schema.GroupResource{}, "", "", 0, false))
	}
}

// capture takes the handler kube-openapi's v2 service registers, so the
// Service can route to it itself.
type capture struct{ handler http.Handler }

func (c *capture) Handle(_ string, h http.Handler) { c.handler = h }
