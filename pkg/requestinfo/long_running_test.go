package requestinfo

import (
	"net/http"
	"testing"
)

func TestIsLongRunning(t *testing.T) {
	for _, tc := range []struct {
		method, path, watch string
		want                bool
	}{
		{http.MethodGet, "/api/v1/namespaces/ns/pods", "true", true},
		{http.MethodGet, "/api/v1/pods", "1", true},
		{http.MethodGet, "/api/v1/watch/namespaces/ns/pods", "", true},
		{http.MethodPost, "/api/v1/namespaces/ns/pods/p/exec", "", true},
		{http.MethodGet, "/api/v1/namespaces/ns/pods/p/exec", "", true},
		{http.MethodPost, "/api/v1/namespaces/ns/pods/p/attach", "", true},
		{http.MethodPost, "/api/v1/namespaces/ns/pods/p/portforward", "", true},
		{http.MethodGet, "/api/v1/namespaces/ns/pods/p/proxy", "", true},
		{http.MethodGet, "/api/v1/namespaces/ns/services/s/proxy", "", true},
		{http.MethodGet, "/api/v1/namespaces/ns/pods/p/log", "", true},
		{http.MethodGet, "/debug/pprof/profile", "", true},

		{http.MethodGet, "/api/v1/namespaces/ns/pods", "", false},
		{http.MethodGet, "/api/v1/namespaces/ns/pods/p", "", false},
		{http.MethodPut, "/api/v1/namespaces/ns/pods/p/status", "", false},
		{http.MethodPost, "/api/v1/namespaces/ns/pods", "true", false},
		{http.MethodGet, "/apis/apps/v1/namespaces/ns/deployments/d/scale", "", false},
		{http.MethodGet, "/healthz", "", false},
		{http.MethodGet, "/debug/pprof", "", false},
		{http.MethodGet, "/api/v1", "", false},
	} {
		info := Parse(tc.method, tc.path, tc.watch)
		if got := IsLongRunning(info); got != tc.want {
			t.Errorf("%s %s watch=%q: %v, want %v (verb %q, subresource %q)",
				tc.method, tc.path, tc.watch, got, tc.want, info.Verb, info.Subresource)
		}
	}
	if IsLongRunning(nil) {
		t.Error("IsLongRunning(nil) = true")
	}
}
