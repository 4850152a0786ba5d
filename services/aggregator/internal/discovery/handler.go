package discovery

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apidiscovery"
	"github.com/kubesplit/kubesplit/pkg/apierror"
)

// Defaults for the zero values of Config.
const (
	DefaultCacheFor     = 5 * time.Second
	DefaultFetchTimeout = 2 * time.Second
	// DefaultRetryAfter is what a 503 for /apis asks the client to wait.
	DefaultRetryAfter = time.Second
	// IncompleteFor is how long a merged /apis that some upstream did not
	// answer serves: briefly, since the upstream is most likely starting.
	IncompleteFor = 200 * time.Millisecond
)

// Backend is one upstream as the handler needs it: the handler that
// proxies requests to it, and a way to fetch a path from it for the
// aggregator itself. *proxy.Proxy is one.
type Backend interface {
	http.Handler
	Get(ctx context.Context, path string) (*http.Response, error)
}

// Config configures a Handler.
type Config struct {
	// Table routes paths to upstream names. Required.
	Table *Table
	// Backends serve the upstreams, by name; every upstream the table
	// names when New runs must have one.
	Backends map[string]Backend
	// CacheFor is how long a merged /apis is served before the upstreams
	// are asked again; zero means DefaultCacheFor.
	CacheFor time.Duration
	// FetchTimeout bounds the fetch of every upstream's /apis; zero means
	// DefaultFetchTimeout.
	FetchTimeout time.Duration
	// FetchContext, when set, prepares the context of those fetches
	// (the triggering request's, without its cancellation), for example so
	// that Decorate asserts the aggregator's own identity: the result is
	// shared by every caller.
	FetchContext func(context.Context) context.Context
	// RetryAfter is what a 503 asks the client to wait when no upstream
	// answered; zero means DefaultRetryAfter.
	RetryAfter time.Duration
	// Now is the clock of the cache; nil means time.Now.
	Now func() time.Time
	// Log receives the upstreams left out of /apis; nil means
	// slog.Default().
	Log *slog.Logger
}

// Handler serves every path under /api and /apis: the merged /apis itself,
// and the rest forwarded to the upstream the table routes it to.
type Handler struct {
	table                  *Table
	backends               map[string]Backend
	cacheFor, fetchTimeout time.Duration
	retryAfter             time.Duration
	fetchContext           func(context.Context) context.Context
	now                    func() time.Time
	log                    *slog.Logger
	cache                  groupCache
	aggCache               aggregatedCache
	aggregated             atomic.Pointer[aggregated] // see SetAPIServices
	lastServed             lastServed
}

// New returns a handler for cfg.
func New(cfg Config) (*Handler, error) {
	if cfg.Table == nil {
		return nil, fmt.Errorf("%w: no table", ErrInvalidConfig)
	}
	for _, name := range cfg.Table.Upstreams() {
		if cfg.Backends[name] == nil {
			return nil, fmt.Errorf("%w: no backend for upstream %q", ErrInvalidConfig, name)
		}
	}
	if cfg.CacheFor < 0 || cfg.FetchTimeout < 0 || cfg.RetryAfter < 0 {
		return nil, fmt.Errorf("%w: negative duration", ErrInvalidConfig)
	}
	h := &Handler{
		table: cfg.Table, backends: cfg.Backends, cacheFor: cfg.CacheFor, fetchTimeout: cfg.FetchTimeout,
		fetchContext: cfg.FetchContext, now: cfg.Now, log: cfg.Log,
		retryAfter: cmp.Or(cfg.RetryAfter, DefaultRetryAfter),
	}
	h.cacheFor = cmp.Or(h.cacheFor, DefaultCacheFor)
	h.fetchTimeout = cmp.Or(h.fetchTimeout, DefaultFetchTimeout)
	if h.fetchContext == nil {
		h.fetchContext = func(ctx context.Context) context.Context { return ctx }
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	return h, nil
}

// ServeHTTP serves GET /apis merged, and /apis/<group> of the groups
// APIServices serve, and forwards every other API path.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	trimDiscoverySlash(r)
	if r.URL.Path == "/apis" {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			apierror.Write(w, apierrors.NewMethodNotSupported(schema.GroupResource{}, r.Method))
			return
		}
		apidiscovery.Serve(http.HandlerFunc(h.serveGroupList), h.aggregatedDocument).ServeHTTP(w, r)
		return
	}
	if group, ok := h.aggregatedGroup(r.URL.Path); ok {
		h.serveGroup(w, r, group)
		return
	}
	name, ok := h.table.Route(r.URL.Path)
	if !ok {
		apierror.Write(w, notFound())
		return
	}
	b := h.backend(name)
	if b == nil { // a rule added at run time for an upstream nobody serves
		apierror.Write(w, apierror.Unavailable(fmt.Sprintf("no backend serves upstream %q", name), h.retryAfter))
		return
	}
	b.ServeHTTP(w, r)
}

// serveGroupList answers /apis with every upstream's groups, in legacy
// form (aggregatedDocument answers the aggregated one).
func (h *Handler) serveGroupList(w http.ResponseWriter, r *http.Request) {
	groups, answers := h.groupList(r.Context())
	if answers == 0 {
		apierror.Write(w, apierror.Unavailable("no API service answered discovery", h.retryAfter))
		return
	}
	groups = withAggregated(groups, h.aggregated.Load())
	list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: groups}
	body, _ := json.Marshal(list)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// notFound is kube's answer for a path nothing serves.
func notFound() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
		Message: "the server could not find the requested resource",
	}}
}

// trimDiscoverySlash drops the trailing slash of a discovery path
// (/api/, /api/v1/, /apis/<group>/, /apis/<group>/<version>/), which kube
// answers as the path without it, so that every upstream sees one form.
func trimDiscoverySlash(r *http.Request) {
	p, ok := strings.CutSuffix(r.URL.Path, "/")
	if !ok || p == "" {
		return
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if (parts[0] == "api" && len(parts) <= 2) || (parts[0] == "apis" && len(parts) <= 3) {
		r.URL.Path, r.URL.RawPath = p, ""
	}
}
