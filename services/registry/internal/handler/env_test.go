package handler

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	apirequest "github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/services/registry/embedetcd/etcdtest"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// env is a handler serving every built-in resource from its own embedded
// etcd, with namespace "ns" created.
type env struct {
	t      *testing.T
	url    string
	client *clientv3.Client
	// h and backend let a test serve a resource of its own.
	h       *Handler
	backend *storage.Backend
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, Admission{})
}

// newEnvWith is newEnv with admission. A request's X-Test-User header is
// taken as the caller the aggregator asserted (identity.Require's job in
// the registry).
func newEnvWith(t *testing.T, adm Admission) *env {
	t.Helper()
	_, client := etcdtest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	backend := storage.NewBackend(ctx, client)
	var stores []*storage.Store
	for _, info := range resource.Builtins() {
		var opts storage.StoreOptions
		if info.Group == "" && info.Resource == "events" {
			opts.TTL = time.Hour
		}
		stores = append(stores, backend.NewStore(info, opts))
	}
	for _, s := range stores {
		// A read at "0" waits for the cache to be filled.
		if _, err := s.Get(ctx, "", "none", storage.ReadOptions{ResourceVersion: "0"}); !apierrors.IsNotFound(err) {
			t.Fatalf("%s cache: %v", s.Info().Resource, err)
		}
	}
	h := New(stores, adm)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if name := r.Header.Get("X-Test-User"); name != "" {
			r = r.WithContext(apirequest.WithUser(r.Context(), authenticationv1.UserInfo{Username: name, Groups: []string{"testers"}}))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(h.Shutdown)
	env := &env{t: t, url: srv.URL, client: client, h: h, backend: backend}
	env.mustDo("POST", "/api/v1/namespaces", `{"metadata":{"name":"ns"}}`, http.StatusCreated)
	return env
}

// request is one HTTP call; header pairs follow the body.
func (e *env) do(method, path, body string, header ...string) (*http.Response, []byte) {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.url+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp, data
}

// mustDo makes a JSON call, requires the status code and decodes the body.
func (e *env) mustDo(method, path, body string, code int, header ...string) map[string]any {
	e.t.Helper()
	resp, data := e.do(method, path, body, header...)
	if resp.StatusCode != code {
		e.t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, code, data)
	}
	out := map[string]any{}
	if err := json.Unmarshal(data, &out); err != nil {
		e.t.Fatalf("%s %s: body is not JSON: %v: %s", method, path, err, data)
	}
	return out
}

// etcdState is every key under /registry with its mod revision, and etcd's
// revision, so a test can tell that a request wrote nothing.
type etcdState struct {
	rev  int64
	keys map[string]int64
}

func (e *env) etcdState() etcdState {
	e.t.Helper()
	resp, err := e.client.Get(context.Background(), "/registry/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		e.t.Fatal(err)
	}
	s := etcdState{rev: resp.Header.Revision, keys: map[string]int64{}}
	for _, kv := range resp.Kvs {
		s.keys[string(kv.Key)] = kv.ModRevision
	}
	return s
}

// untouched fails the test when etcd changed since before.
func (e *env) untouched(before etcdState, what string) {
	e.t.Helper()
	after := e.etcdState()
	if after.rev != before.rev || fmt.Sprint(after.keys) != fmt.Sprint(before.keys) {
		e.t.Errorf("%s changed etcd: revision %d -> %d\nbefore %v\nafter  %v", what, before.rev, after.rev, before.keys, after.keys)
	}
}

// modRev is the mod revision of key, 0 when absent.
func (e *env) modRev(key string) int64 {
	e.t.Helper()
	resp, err := e.client.Get(context.Background(), key)
	if err != nil {
		e.t.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		return 0
	}
	return resp.Kvs[0].ModRevision
}

// str reads a string at a dotted path of a decoded object.
func str(obj map[string]any, path string) string {
	v := at(obj, path)
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// at reads the value at a dotted path of a decoded object.
func at(obj map[string]any, path string) any {
	var cur any = obj
	for _, part := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	return cur
}

const (
	cmPath     = "/api/v1/namespaces/ns/configmaps"
	deployPath = "/apis/apps/v1/namespaces/ns/deployments"
)
