// Package requestinfo derives what a Kubernetes API request is about (verb,
// API group and version, resource, subresource, namespace, name) from its
// method, path and query, the way kube-apiserver does, so that every
// kubesplit service reads a URL the same way.
package requestinfo

import (
	"context"
	"net/http"
	"strings"
)

// Info is what a request is about. For a non-resource request (/healthz,
// /version, discovery roots) IsResourceRequest is false and only Path and
// Verb (the lower-cased HTTP method) are set.
type Info struct {
	IsResourceRequest bool
	Path              string
	// Verb is the Kubernetes verb: get, list, watch, create, update, patch,
	// delete, deletecollection, or for non-resource requests the lower-case
	// HTTP method.
	Verb string

	APIPrefix   string // "api" or "apis"
	APIGroup    string // "" for the core group
	APIVersion  string
	Namespace   string
	Resource    string
	Subresource string
	Name        string
	// Parts are the path segments after the version.
	Parts []string
}

// namespaceSubresources are the subresources of a namespace itself, so that
// /api/v1/namespaces/foo/status names the namespace foo, not a resource
// "status" inside it.
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// New reads a request.
func New(r *http.Request) *Info {
	return Parse(r.Method, r.URL.Path, r.URL.Query().Get("watch"))
}

// Parse reads a method and path; watchParam is the value of the ?watch
// query parameter.
func Parse(method, path, watchParam string) *Info {
	info := &Info{Path: path, Verb: strings.ToLower(method)}
	parts := splitPath(path)
	if len(parts) < 2 || (parts[0] != "api" && parts[0] != "apis") {
		return info
	}
	info.APIPrefix = parts[0]
	parts = parts[1:]
	if info.APIPrefix == "apis" {
		if len(parts) < 2 {
			return info // /apis/<group>: discovery
		}
		info.APIGroup = parts[0]
		parts = parts[1:]
	}
	info.APIVersion = parts[0]
	parts = parts[1:]
	if len(parts) == 0 {
		return info // /api/v1, /apis/<group>/<version>: discovery
	}
	info.IsResourceRequest = true

	// The deprecated /watch/ path prefix means a watch.
	legacyWatch := false
	if parts[0] == "watch" {
		legacyWatch = true
		parts = parts[1:]
	}
	if parts[0] == "namespaces" && len(parts) > 1 {
		info.Namespace = parts[1]
		if len(parts) > 2 && !namespaceSubresources[parts[2]] {
			parts = parts[2:]
		}
	}
	info.Parts = parts
	info.Resource = parts[0]
	if len(parts) > 1 {
		info.Name = parts[1]
	}
	if len(parts) > 2 {
		info.Subresource = parts[2]
	}
	info.Verb = verb(method, info.Name, legacyWatch || watchParam == "true" || watchParam == "1")
	return info
}

// verb maps an HTTP method on a resource path to the Kubernetes verb.
func verb(method, name string, watch bool) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		switch {
		case watch:
			return "watch"
		case name == "":
			return "list"
		default:
			return "get"
		}
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if name == "" {
			return "deletecollection"
		}
		return "delete"
	}
	return strings.ToLower(method)
}

func splitPath(path string) []string {
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

type contextKey struct{}

// WithInfo returns a context carrying info.
func WithInfo(ctx context.Context, info *Info) context.Context {
	return context.WithValue(ctx, contextKey{}, info)
}

// From returns the Info a context carries.
func From(ctx context.Context) (*Info, bool) {
	info, ok := ctx.Value(contextKey{}).(*Info)
	return info, ok
}

// Of is the Info an earlier middleware attached to r (see Attach), or r's
// own, parsed now: a request's URL is read once however many stages ask.
func Of(r *http.Request) *Info {
	if info, ok := From(r.Context()); ok && info != nil {
		return info
	}
	return New(r)
}

// Attach returns r's Info and a request whose context carries it, parsing
// only when no earlier middleware did, so that every later stage's Of
// reuses it.
func Attach(r *http.Request) (*Info, *http.Request) {
	if info, ok := From(r.Context()); ok && info != nil {
		return info, r
	}
	info := New(r)
	return info, r.WithContext(WithInfo(r.Context(), info))
}
