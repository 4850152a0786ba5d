package apierror

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestServeMuxRefusalsAreStatuses checks what clients of a backend get for
// a method its path is not served for, and for an unknown path: a Status
// they can read, where ServeMux would answer plain text.
func TestServeMuxRefusalsAreStatuses(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /apis/g/v1/reviews", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) })
	mux.HandleFunc("GET /items/{name}", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, r.PathValue("name")) })
	srv := httptest.NewServer(ServeMux(mux))
	defer srv.Close()

	cases := []struct {
		method, path string
		code         int
		reason       metav1.StatusReason
	}{
		{"PUT", "/apis/g/v1/reviews", http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed},
		{"BREW", "/apis/g/v1/reviews", http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed},
		{"GET", "/nowhere", http.StatusNotFound, metav1.StatusReasonNotFound},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var s metav1.Status
		if resp.StatusCode != c.code || json.Unmarshal(body, &s) != nil || s.Kind != "Status" || s.Reason != c.reason {
			t.Errorf("%s %s: %d %q, want a %s Status with %d", c.method, c.path, resp.StatusCode, body, c.reason, c.code)
		}
		if c.code == http.StatusMethodNotAllowed && resp.Header.Get("Allow") == "" {
			t.Errorf("%s %s: no Allow header", c.method, c.path)
		}
	}
	// Served paths are untouched, path values included.
	resp, err := http.Get(srv.URL + "/items/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "x" {
		t.Errorf("GET /items/x: %d %q", resp.StatusCode, body)
	}
}
