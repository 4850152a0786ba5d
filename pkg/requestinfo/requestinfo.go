// Package requestinfo derives what a Kubernetes API request is about (verb,
// API group and version, resource, subresource, namespace, name) from its
// method, path and query, the way kube-apiserver does, so that every
// kubesplit service reads a URL the same way. pkg/request carries what it
// read from one stage of a request to the next.
package requestinfo

import (
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
	// InNamespace is true when the path addresses the resource inside a
	// namespace (/namespaces/<ns>/<resource>…), false for a path without
	// one and for a Namespace's own path (/api/v1/namespaces/<name>, whose
	// Namespace is its name, as kube reports it). A server compares it with
	// the resource's scope: a cluster-scoped resource under a namespace, or
	// a namespaced one named outside any, is not served (see ScopeMatches).
	InNamespace bool
	// Parts are the path segments after the version.
	Parts []string
}

// namespaceSubresources are the subresources of a namespace itself, so that
// /api/v1/namespaces/foo/status names the namespace foo, not a resource
// "status" inside it.
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// New reads a request.
func New(r *http.Request) *Info {
	watch := ""
	if values, ok := r.URL.Query()["watch"]; ok {
		// ?watch with no value asks for a watch too, as kube reads it.
		watch = "true"
		if values[0] != "" {
			watch = values[0]
		}
	}
	return Parse(r.Method, r.URL.Path, watch)
}

// Parse reads a method and path; watchParam is the value of the ?watch
// query parameter, "" when there is none.
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
		switch {
		case len(parts) > 2 && !namespaceSubresources[parts[2]]:
			info.Namespace, info.InNamespace = parts[1], true
			parts = parts[2:]
		case info.APIPrefix == "api":
			// A Namespace's own path: kube authorizes it inside the
			// namespace it names, so that a RoleBinding there can grant
			// reading it. In any other group a resource called
			// "namespaces" is an ordinary one, authorized by its scope.
			info.Namespace = parts[1]
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
	info.Verb = verb(method, info.Name, legacyWatch, watchRequested(watchParam))
	return info
}

// ScopeMatches reports whether a request's path addresses a resource of
// the given scope the way kube routes it: a namespaced resource inside a
// namespace, or across all of them when listed or watched; a
// cluster-scoped one never inside a namespace. A path that does not match
// is not found, whatever the authorizer said about it, since it
// authorized the path's reading, not the object's.
func (i *Info) ScopeMatches(namespaced bool) bool {
	if namespaced {
		return i.InNamespace || i.Name == ""
	}
	return !i.InNamespace
}

// watchRequested reads ?watch as kube decodes a bool parameter: present
// and neither "false" nor "0", in any case.
func watchRequested(param string) bool {
	return param != "" && param != "0" && !strings.EqualFold(param, "false")
}

// verb maps an HTTP method on a resource path to the Kubernetes verb. As
// in kube, ?watch turns a collection's GET into a watch, while the
// deprecated /watch/ prefix makes any GET one.
func verb(method, name string, legacyWatch, watchParam bool) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		switch {
		case legacyWatch, name == "" && watchParam:
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
