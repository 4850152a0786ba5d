package filters

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// describeInfo answers with the request info the context carries.
func describeInfo(w http.ResponseWriter, r *http.Request) {
	info, ok := request.InfoFrom(r.Context())
	if !ok {
		http.Error(w, "no request info in context", http.StatusInternalServerError)
		return
	}
	_, _ = fmt.Fprintf(w, "%s %s/%s %s ns=%s name=%s sub=%s",
		info.Verb, info.APIGroup, info.APIVersion, info.Resource, info.Namespace, info.Name, info.Subresource)
}

func TestRequestInfoReachesLaterStages(t *testing.T) {
	srv := newServer(t, []func(http.Handler) http.Handler{WithRequestInfo()}, func(r chi.Router) {
		r.HandleFunc("/*", describeInfo)
	})
	for _, tc := range []struct{ method, path, want string }{
		{http.MethodGet, "/api/v1/namespaces/ns1/pods", "list /v1 pods ns=ns1 name= sub="},
		{http.MethodGet, "/api/v1/namespaces/ns1/pods?watch=true", "watch /v1 pods ns=ns1 name= sub="},
		{http.MethodPatch, "/apis/apps/v1/namespaces/ns1/deployments/d/scale", "patch apps/v1 deployments ns=ns1 name=d sub=scale"},
		{http.MethodGet, "/healthz", "get /  ns= name= sub="},
	} {
		resp, body := do(t, srv, tc.method, tc.path)
		if resp.StatusCode != http.StatusOK || string(body) != tc.want {
			t.Errorf("%s %s: %d %q, want %q", tc.method, tc.path, resp.StatusCode, body, tc.want)
		}
	}
}

// TestRequestInfoIsParsedOnce puts an info in the context that no URL would
// parse to, ahead of every filter that reads it: each must reuse it.
func TestRequestInfoIsParsedOnce(t *testing.T) {
	planted := &requestinfo.Info{Verb: "planted"}
	plant := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(request.WithInfo(r.Context(), planted)))
		})
	}
	l, err := NewInFlightLimiter(MaxInFlightConfig{MaxRequests: 1, MaxMutating: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *requestinfo.Info, 1)
	srv := newServer(t, []func(http.Handler) http.Handler{
		plant, WithMaxInFlight(l), mustDeadline(t, 0), WithRequestInfo(),
	}, func(r chi.Router) {
		r.Get("/api/v1/pods", func(w http.ResponseWriter, r *http.Request) {
			info, _ := request.InfoFrom(r.Context())
			got <- info
		})
	})
	do(t, srv, http.MethodGet, "/api/v1/pods")
	if info := recv(t, got); info != planted {
		t.Errorf("handler saw %+v, want the planted info", info)
	}
}

// TestEarlyFiltersShareTheirParse: when the filters that need the info run
// before WithRequestInfo, as in the aggregator's chain, what they parsed
// reaches the handler.
func TestEarlyFiltersShareTheirParse(t *testing.T) {
	l, err := NewInFlightLimiter(MaxInFlightConfig{MaxRequests: 1, MaxMutating: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, []func(http.Handler) http.Handler{WithMaxInFlight(l)}, func(r chi.Router) {
		r.HandleFunc("/*", describeInfo)
	})
	resp, body := do(t, srv, http.MethodDelete, "/api/v1/namespaces/ns1/pods/p")
	if want := "delete /v1 pods ns=ns1 name=p sub="; resp.StatusCode != http.StatusOK || string(body) != want {
		t.Errorf("%d %q, want %q", resp.StatusCode, body, want)
	}
}
