package webhook

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestWriteJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	rec.Header().Set("X-Revision", "3")
	WriteJSON(rec, http.StatusCreated, answer{Allowed: true})
	if rec.Code != 201 || rec.Header().Get("Content-Type") != "application/json" ||
		rec.Header().Get("X-Revision") != "3" || rec.Body.String() != "{\"allowed\":true}\n" {
		t.Fatalf("%d %v %q", rec.Code, rec.Header(), rec.Body.String())
	}
}

// TestWriteJSONUnencodable: a value that cannot be encoded is a 500 Status,
// never a 2xx a client would read.
func TestWriteJSONUnencodable(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteJSON(rec, http.StatusOK, func() {})
	var status metav1.Status
	if err := json.Unmarshal(rec.Body.Bytes(), &status); err != nil || rec.Code != 500 || status.Reason != metav1.StatusReasonInternalError {
		t.Fatalf("%d %q", rec.Code, rec.Body.String())
	}
}
