package discovery

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/services/aggregator/internal/proxy"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"
)

// waitLimit bounds every wait in these tests, so that a bug fails a test
// instead of hanging it; nothing waits on it to synchronise.
const waitLimit = 10 * time.Second

var quiet = slog.New(slog.DiscardHandler)

var _ Backend = (*proxy.Proxy)(nil)

// service is a test upstream: one server behind a real upstream and proxy.
// It lists groups at /apis and answers every other path with its name.
type service struct {
	name    string
	srv     *httptest.Server
	proxy   *proxy.Proxy
	fetches atomic.Int64
}

// newService starts a service listing groups ("group/version" each); a
// service that is down fails its health check, so its upstream has no
// endpoint.
func newService(t *testing.T, name string, down bool, groups ...string) *service {
	t.Helper()
	s := &service{name: name}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == upstream.DefaultHealthPath && down:
			w.WriteHeader(http.StatusServiceUnavailable)
		case r.URL.Path == upstream.DefaultHealthPath:
		case r.URL.Path == "/apis":
			s.fetches.Add(1)
			_ = json.NewEncoder(w).Encode(groupList(groups...))
		default:
			_, _ = io.WriteString(w, name+" "+r.Method+" "+r.URL.Path)
		}
	}))
	t.Cleanup(s.srv.Close)
	up, err := upstream.New(upstream.Config{Name: name, URLs: []string{s.srv.URL}, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	_ = up.Resolve(ctx)
	if s.proxy, err = proxy.New(proxy.Config{Upstream: up, Log: quiet}); err != nil {
		t.Fatal(err)
	}
	return s
}

// groupList builds an APIGroupList of "group/version" entries, the first
// version of each group preferred.
func groupList(gvs ...string) metav1.APIGroupList {
	list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	for _, gv := range gvs {
		var g, v string
		for i := range gv {
			if gv[i] == '/' {
				g, v = gv[:i], gv[i+1:]
			}
		}
		ver := metav1.GroupVersionForDiscovery{GroupVersion: gv, Version: v}
		if n := len(list.Groups); n > 0 && list.Groups[n-1].Name == g {
			list.Groups[n-1].Versions = append(list.Groups[n-1].Versions, ver)
			continue
		}
		list.Groups = append(list.Groups, metav1.APIGroup{Name: g, Versions: []metav1.GroupVersionForDiscovery{ver}, PreferredVersion: ver})
	}
	return list
}

// newHandler returns a handler over services with the default table.
func newHandler(t *testing.T, now func() time.Time, services ...*service) *Handler {
	t.Helper()
	backends := map[string]Backend{}
	for _, s := range services {
		backends[s.name] = s.proxy
	}
	h, err := New(Config{Table: NewDefaultTable(), Backends: backends, Now: now, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// serve sends one request to h.
func serve(h http.Handler, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, path, nil)
	ctx, cancel := context.WithTimeout(req.Context(), waitLimit)
	defer cancel()
	h.ServeHTTP(rec, req.WithContext(ctx))
	return rec
}

// groupsOf decodes a /apis answer into "group/version" entries, in order,
// the preferred version of each group first marked with "*".
func groupsOf(t *testing.T, rec *httptest.ResponseRecorder) []string {
	t.Helper()
	if rec.Code != http.StatusOK {
		t.Fatalf("/apis: %d %s", rec.Code, rec.Body)
	}
	var list metav1.APIGroupList
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || list.Kind != "APIGroupList" {
		t.Fatalf("/apis body is not an APIGroupList (%v): %s", err, rec.Body)
	}
	var out []string
	for _, g := range list.Groups {
		for _, v := range g.Versions {
			mark := ""
			if v == g.PreferredVersion {
				mark = "*"
			}
			out = append(out, mark+v.GroupVersion)
		}
	}
	return out
}
