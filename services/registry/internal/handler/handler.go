// Package handler serves the Kubernetes REST API of the registry's
// resources: it parses a request, decodes its body, runs the generic
// create/update/patch/delete logic around a storage.Store, and encodes the
// answer in the format the client negotiated.
package handler

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/authz"
	apirequest "github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/requestinfo"
	"github.com/kubesplit/kubesplit/pkg/tracing"
	"github.com/kubesplit/kubesplit/services/registry/internal/connect"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// Handler serves resource requests for a set of stores.
type Handler struct {
	mu     sync.RWMutex
	stores map[schema.GroupVersionResource]*storage.Store
	// namespaces is the store of Namespaces, to refuse objects in a
	// namespace that does not exist.
	namespaces *storage.Store
	fields     fieldManagers
	adm        Admission
	now        func() metav1.Time
	// suffix makes the random part of names from generateName; tests
	// replace it to make names collide.
	suffix func() string
	// closing is closed when the server shuts down, ending every watch.
	closing  chan struct{}
	closeOne sync.Once
	// connect serves the subresources that reach a kubelet or a pod;
	// nil leaves them unserved (404).
	connect *connect.Handler
	// components are what componentstatuses probe; nil leaves them
	// unserved (404).
	components Components
	// authorizer answers kube's strategies about the writer (SetAuthorizer).
	authorizer authz.Authorizer
}

// SetConnect has h serve pods/log, exec, attach, portforward and proxy and
// nodes/proxy with c.
func (h *Handler) SetConnect(c *connect.Handler) { h.connect = c }

// Shutdown ends every watch, so the HTTP server can drain.
func (h *Handler) Shutdown() { h.closeOne.Do(func() { close(h.closing) }) }

// New returns a handler for stores, whose writes pass adm.
func New(stores []*storage.Store, adm Admission) *Handler {
	h := &Handler{stores: map[schema.GroupVersionResource]*storage.Store{}, now: metav1.Now, suffix: randomSuffix, closing: make(chan struct{}),
		adm: adm}
	for _, s := range stores {
		h.Add(s)
	}
	return h
}

// Add serves one more resource (custom resources arrive at run time).
func (h *Handler) Add(s *storage.Store) {
	h.mu.Lock()
	defer h.mu.Unlock()
	info := s.Info()
	h.stores[info.GroupVersionResource()] = s
	if info.Group == "" && info.Resource == "namespaces" {
		h.namespaces = s
	}
}

// Remove stops serving a resource.
func (h *Handler) Remove(gvr schema.GroupVersionResource) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.stores, gvr)
}

func (h *Handler) store(info *requestinfo.Info) (*storage.Store, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	s, ok := h.stores[schema.GroupVersionResource{Group: info.APIGroup, Version: info.APIVersion, Resource: info.Resource}]
	return s, ok
}

// storeOf is the store of a resource in any version.
func (h *Handler) storeOf(gr metav1.GroupResource) (*storage.Store, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for gvr, s := range h.stores {
		if gvr.Group == gr.Group && gvr.Resource == gr.Resource {
			return s, true
		}
	}
	return nil, false
}

// ServeHTTP dispatches a resource request by verb.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	info := apirequest.InfoOf(r)
	if !info.IsResourceRequest {
		apierror.Write(w, apierrors.NewNotFound(schema.GroupResource{}, info.Path))
		return
	}
	s, ok := h.store(info)
	// The aggregator authorized what the path reads as; a path whose scope
	// is not the resource's (a cluster-scoped resource under a namespace)
	// names no object, so nothing is served for it.
	// A proxy subresource takes a path of its own after /proxy.
	if !ok || (len(info.Parts) > 3 && info.Subresource != "proxy") || (info.Subresource != "" && !s.Info().HasSubresource(info.Subresource)) ||
		!info.ScopeMatches(s.Info().Namespaced) {
		apierror.Write(w, apierror.NotFoundPath(r.Method))
		return
	}
	user, _ := apirequest.UserFrom(r.Context())
	tracing.Describe(r.Context(), r.Method, info, user.Username)
	if refuse := s.Info().Refuse; refuse != nil {
		if err := refuse(info.Verb, info.Name); err != nil {
			apierror.Write(w, err)
			return
		}
	}
	if msg := s.Info().Deprecation; msg != "" {
		// Kube warns of a deprecated API on every request for it, first.
		w.Header().Add("Warning", warningHeader(msg))
	}
	req := &request{h: h, w: w, r: r, info: info, store: s, res: s.Info()}
	err := req.serve()
	if err != nil {
		if !req.written {
			req.writeWarnings(nil)
			apierror.Write(w, err)
		} else {
			slog.Warn("request failed after the response began", "path", r.URL.Path, "err", err)
		}
	}
}

// dispatch runs the verb of a request on a resource or its status.
// serve answers the request: by the code of its action when it has one,
// else by verb.
func (q *request) serve() error {
	if q.h.connect != nil && q.res.Group == "" && connect.Serves(q.res.Resource, q.info.Subresource) {
		if err := q.admitConnect(); err != nil {
			return err
		}
		return connect.AsStatus(q.h.connect.Serve(q.w, q.r, q.info))
	}
	verbs := q.res.ServedVerbs
	if a, ok := q.res.Action(q.info.Subresource); ok {
		verbs = a.Verbs
	}
	if verbs != nil && !slices.Contains(verbs, q.info.Verb) {
		return apierrors.NewMethodNotSupported(q.groupResource(), q.info.Verb)
	}
	switch {
	case q.info.Subresource == "scale":
		return q.scale()
	case q.info.Subresource == "binding", q.res.Group == "" && q.res.Resource == "bindings":
		return q.bind()
	case q.info.Subresource == "eviction":
		return q.evict()
	case q.res.Group == "" && q.res.Resource == "componentstatuses":
		return q.componentStatuses()
	}
	if _, ok := q.res.Action(q.info.Subresource); ok {
		// An action another service serves (serviceaccounts/token: authn).
		return apierrors.NewNotFound(q.groupResource(), q.info.Name)
	}
	return q.dispatch()
}

func (q *request) dispatch() error {
	switch q.info.Verb {
	case "get":
		return q.get()
	case "list":
		return q.list()
	case "watch":
		return q.watch()
	case "create":
		return q.create()
	case "update":
		return q.update()
	case "patch":
		return q.patch()
	case "delete":
		return q.delete()
	case "deletecollection":
		return q.deleteCollection()
	}
	return apierrors.NewMethodNotSupported(q.groupResource(), q.r.Method)
}

// request is one resource request in flight.
type request struct {
	h       *Handler
	w       http.ResponseWriter
	r       *http.Request
	info    *requestinfo.Info
	store   *storage.Store
	res     *resource.Info
	written bool
	// warnings are admission's, for the response (see addWarnings).
	warnMu   sync.Mutex
	warnings []string
	// kubeCtx is the context kube's strategies run in (strategyContext).
	kubeCtx context.Context
}

func (q *request) groupResource() schema.GroupResource {
	return schema.GroupResource{Group: q.res.Group, Resource: q.res.Resource}
}

// namespaceOK checks the request's namespace: required for namespaced
// resources (except lists and watches across all namespaces).
func (q *request) namespaceOK() error {
	if q.res.Namespaced && q.info.Namespace == "" && q.info.Name != "" {
		return apierrors.NewBadRequest("the namespace of the object must be given in the URL")
	}
	return nil
}
