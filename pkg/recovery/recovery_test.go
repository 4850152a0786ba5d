package recovery

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPanicIsAStatus: a handler's panic answers that request alone with a
// 500 InternalError Status that keeps the panic value to the log. The
// aggregator's chain tests (internal/filters) cover keep-alive, aborts
// and panics mid-response.
func TestPanicIsAStatus(t *testing.T) {
	rec := httptest.NewRecorder()
	Middleware(nil)(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("secret internals") })).
		ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/namespaces", nil))
	var s metav1.Status
	if rec.Code != http.StatusInternalServerError || json.Unmarshal(rec.Body.Bytes(), &s) != nil || s.Reason != metav1.StatusReasonInternalError {
		t.Fatalf("%d %q, want a 500 InternalError Status", rec.Code, rec.Body)
	}
	if strings.Contains(rec.Body.String(), "secret") {
		t.Errorf("the panic value reached the client: %s", rec.Body)
	}
}
