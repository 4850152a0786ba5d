package apierror

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestWrite(t *testing.T) {
	cases := []struct {
		err    error
		code   int
		reason metav1.StatusReason
		retry  string
	}{
		{apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "x"), 404, metav1.StatusReasonNotFound, ""},
		{apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, "x", errors.New("stale")), 409, metav1.StatusReasonConflict, ""},
		{apierrors.NewServiceUnavailable("down"), 503, metav1.StatusReasonServiceUnavailable, ""},
		{apierrors.NewTooManyRequests("busy", 2), 429, metav1.StatusReasonTooManyRequests, "2"},
		{errors.New("boom"), 500, metav1.StatusReasonInternalError, ""},
	}
	for _, c := range cases {
		rec := httptest.NewRecorder()
		Write(rec, c.err)
		if rec.Code != c.code {
			t.Errorf("%v: code %d, want %d", c.err, rec.Code, c.code)
		}
		if got := rec.Header().Get("Retry-After"); got != c.retry {
			t.Errorf("%v: Retry-After %q, want %q", c.err, got, c.retry)
		}
		var s metav1.Status
		if err := json.Unmarshal(rec.Body.Bytes(), &s); err != nil {
			t.Fatalf("%v: body is not a Status: %v", c.err, err)
		}
		if s.Kind != "Status" || s.Reason != c.reason || int(s.Code) != c.code || s.Status != metav1.StatusFailure {
			t.Errorf("%v: status %+v", c.err, s)
		}
		if rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%v: content type %q", c.err, rec.Header().Get("Content-Type"))
		}
	}
	_ = http.StatusOK
}
