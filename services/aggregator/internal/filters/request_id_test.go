package filters

import (
	"io"
	"net/http"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/kubesplit/kubesplit/pkg/request"
)

// echoRequestID answers with the id the context carries.
func echoRequestID(w http.ResponseWriter, r *http.Request) {
	id, ok := request.AuditIDFrom(r.Context())
	if !ok {
		http.Error(w, "no request id in context", http.StatusInternalServerError)
		return
	}
	_, _ = io.WriteString(w, id)
}

func TestRequestIDIsFreshAndUnique(t *testing.T) {
	srv := newServer(t, []func(http.Handler) http.Handler{WithRequestID()}, func(r chi.Router) {
		r.Get("/", echoRequestID)
	})
	seen := map[string]bool{}
	for range 20 {
		resp, body := do(t, srv, http.MethodGet, "/")
		id := resp.Header.Get(HeaderAuditID)
		if _, err := uuid.Parse(id); err != nil {
			t.Fatalf("Audit-Id %q is not a UUID: %v", id, err)
		}
		if string(body) != id {
			t.Fatalf("context id %q, header %q", body, id)
		}
		if seen[id] {
			t.Fatalf("Audit-Id %q given twice", id)
		}
		seen[id] = true
	}
}

func TestRequestIDKeepsTheClients(t *testing.T) {
	srv := newServer(t, []func(http.Handler) http.Handler{WithRequestID()}, func(r chi.Router) {
		r.Get("/", echoRequestID)
	})
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Audit-ID", "client-chosen-id")
	resp, body := send(t, srv.Client(), req)
	if got := resp.Header.Get(HeaderAuditID); got != "client-chosen-id" || string(body) != got {
		t.Errorf("header %q, context %q; want the client's id in both", got, body)
	}
}

// TestRequestIDLeavesAnEarlierHeader mirrors kube: an outer handler that
// already answered with an Audit-Id (an aggregated server behind another)
// keeps it.
func TestRequestIDLeavesAnEarlierHeader(t *testing.T) {
	outer := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(HeaderAuditID, "outer")
			next.ServeHTTP(w, r)
		})
	}
	srv := newServer(t, []func(http.Handler) http.Handler{outer, WithRequestID()}, func(r chi.Router) {
		r.Get("/", echoRequestID)
	})
	resp, _ := do(t, srv, http.MethodGet, "/")
	if got := resp.Header.Get(HeaderAuditID); got != "outer" {
		t.Errorf("Audit-Id %q, want the outer handler's", got)
	}
}
