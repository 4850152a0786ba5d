package requestinfo

import "strings"

// longRunningSubresources are the subresources kube-apiserver treats as
// long-running: they stream (log -f) or hold an upgraded connection for as
// long as the user's session lasts (exec, attach, portforward, proxy).
var longRunningSubresources = map[string]bool{
	"attach":      true,
	"exec":        true,
	"log":         true,
	"portforward": true,
	"proxy":       true,
}

// IsLongRunning reports whether a request may legitimately stay open for as
// long as the client wants, so that neither the in-flight budget nor the
// request deadline applies to it, nor counts it in flight. It is kube-apiserver's
// LongRunningRequestCheck: a watch, one of longRunningSubresources, or a
// profile under /debug/pprof/ (which runs for as many seconds as asked).
// Kube also lists the verb "proxy", which only its deprecated /proxy/ path
// prefix produces; requestinfo does not parse that prefix.
func IsLongRunning(info *Info) bool {
	switch {
	case info == nil:
		return false
	case info.Verb == "watch":
		return true
	case info.IsResourceRequest:
		return longRunningSubresources[info.Subresource]
	default:
		return strings.HasPrefix(info.Path, "/debug/pprof/")
	}
}
