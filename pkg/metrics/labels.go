package metrics

import (
	"net/http"
	"strings"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// otherVerb is kube's verb label for a method outside reportedVerbs.
const otherVerb = "other"

// reportedVerbs are the verbs kube-apiserver reports (its metrics
// package's validRequestMethods): any other method is counted as
// otherVerb, so that made-up methods add no series.
var reportedVerbs = []string{
	"APPLY", "CONNECT", "CREATE", "DELETE", "DELETECOLLECTION", "GET", "LIST",
	"PATCH", "POST", "PROXY", "PUT", "UPDATE", "WATCH", "WATCHLIST",
}

// connectSubresources are reported as CONNECT whatever the method, as
// kube does.
var connectSubresources = map[string]bool{"log": true, "exec": true, "portforward": true, "attach": true, "proxy": true}

// labelValues are kube's labels of a request but its code: its verb as
// kube reports it, what it is about when the server serves that, its
// scope and the component. Every value is from a bounded set, whatever
// the URL and method: the labels are set before the caller is
// authenticated.
func (m *Requests) labelValues(r *http.Request, info *requestinfo.Info) []string {
	scope, group, version, resource, subresource := "", "", "", "", ""
	if info.IsResourceRequest {
		switch {
		case info.Name != "":
			scope = "resource"
		case info.Namespace != "":
			scope = "namespace"
		default:
			scope = "cluster"
		}
		// A resource nobody serves is reported with empty labels, as
		// kube reports requests its routes do not know.
		if m.served != nil && m.served.Serves(info.APIGroup, info.APIVersion, info.Resource, info.Subresource) {
			group, version, resource, subresource = info.APIGroup, info.APIVersion, info.Resource, info.Subresource
		}
	}
	return []string{reportedVerb(r, info), group, version, resource, subresource, scope, m.component}
}

// reportedVerb is the verb kube reports: LIST and WATCH apart from GET,
// APPLY apart from PATCH, CONNECT for streaming subresources, else the
// method when kube knows it, else otherVerb.
func reportedVerb(r *http.Request, info *requestinfo.Info) string {
	if info.IsResourceRequest {
		if connectSubresources[info.Subresource] {
			return "CONNECT"
		}
		switch info.Verb {
		case "list":
			return "LIST"
		case "watch":
			return "WATCH"
		case "get":
			return "GET"
		case "patch":
			if strings.HasPrefix(r.Header.Get("Content-Type"), "application/apply-patch") {
				return "APPLY"
			}
		}
	}
	return methodVerb(r.Method)
}

// methodVerb is method upper-cased when kube reports it, else otherVerb.
// HEAD is a GET, as kube's CanonicalVerb has it. It never allocates.
func methodVerb(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		return "GET"
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return method
	}
	if strings.EqualFold(method, http.MethodHead) {
		return "GET"
	}
	for _, v := range reportedVerbs {
		if strings.EqualFold(method, v) {
			// kube normalizes the legacy WATCHLIST to WATCH.
			if v == "WATCHLIST" {
				return "WATCH"
			}
			return v
		}
	}
	return otherVerb
}
