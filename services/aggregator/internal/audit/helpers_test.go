package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// memLog is a log file in memory.
type memLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (m *memLog) Write(b []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.buf.Write(b)
}
func (m *memLog) Close() error { return nil }

// events parses the log's lines.
func (m *memLog) events(t *testing.T) []Event {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Event
	sc := bufio.NewScanner(bytes.NewReader(m.buf.Bytes()))
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, ev)
	}
	return out
}

func (m *memLog) raw() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.buf.String()
}

func writePolicy(t *testing.T, yaml string) *Policy {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPolicy(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// stack is the audit filters around handler, as the aggregator places
// them: request info, then audit, then an authentication that accepts the
// bearer token "alice" (anything else is 401), then impersonation of the
// user named in Impersonate-User.
type stack struct {
	log     *memLog
	backend *Backend
	server  *httptest.Server
}

func newStack(t *testing.T, policy *Policy, handler http.Handler) *stack {
	t.Helper()
	log := &memLog{}
	b := newBackend(log, 100, nil)
	f, err := NewFilters(Config{Policy: policy, Backend: b,
		LongRunning: func(info *requestinfo.Info) bool { return info.Verb == "watch" }})
	if err != nil {
		t.Fatal(err)
	}
	authenticate := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer alice" {
				http.Error(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`, http.StatusUnauthorized)
				return
			}
			u := authenticationv1.UserInfo{Username: "alice", Groups: []string{"devs"}}
			next.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), u)))
		})
	}
	impersonate := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if as := r.Header.Get("Impersonate-User"); as != "" {
				r = r.WithContext(request.WithUser(r.Context(), authenticationv1.UserInfo{Username: as}))
			}
			next.ServeHTTP(w, r)
		})
	}
	withInfo := func(next http.Handler) http.Handler { // as the aggregator's request id and info filters do
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := request.WithAuditID(r.Context(), "id-1")
			next.ServeHTTP(w, r.WithContext(request.WithInfo(ctx, requestinfo.New(r))))
		})
	}
	recovering := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if recover() != nil {
					w.WriteHeader(http.StatusInternalServerError)
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
	h := recovering(withInfo(f.Around(authenticate(f.AfterAuthentication(impersonate(f.AfterImpersonation(handler)))))))
	s := &stack{log: log, backend: b, server: httptest.NewServer(h)}
	t.Cleanup(s.server.Close)
	return s
}

// do sends a request as alice (or with the given token) and waits until
// its events are written.
func (s *stack) do(t *testing.T, method, path, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, s.server.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer alice")
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// flush closes the backend so that every event is written.
func (s *stack) flush(t *testing.T) []Event {
	t.Helper()
	s.server.Close()
	s.backend.Close()
	return s.log.events(t)
}

// echo answers with the request body, as a create would with its object.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(body)
})
