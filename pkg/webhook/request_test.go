package webhook

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var reviews = schema.GroupResource{Group: "example.io", Resource: "reviews"}

// serveDecode runs DecodeRequest on one request, with a 64-byte limit.
func serveDecode(method, contentType, body string) (*httptest.ResponseRecorder, answer, bool) {
	r := httptest.NewRequest(method, "/review", strings.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	var got answer
	ok := DecodeRequest(rec, r, reviews, 64, &got)
	return rec, got, ok
}

func TestDecodeRequestAccepts(t *testing.T) {
	for _, ct := range []string{"", "application/json", "application/json; charset=utf-8"} {
		rec, got, ok := serveDecode(http.MethodPost, ct, `{"allowed":true}`)
		if !ok || !got.Allowed || rec.Body.Len() != 0 {
			t.Errorf("%q: ok %v, got %+v, wrote %q", ct, ok, got, rec.Body.String())
		}
	}
}

func TestDecodeRequestRejects(t *testing.T) {
	cases := []struct {
		name, method, contentType, body string
		code                            int
		reason                          metav1.StatusReason
	}{
		{"GET", http.MethodGet, "", "", 405, metav1.StatusReasonMethodNotAllowed},
		{"YAML", http.MethodPost, "application/yaml", "allowed: true", 415, metav1.StatusReasonUnsupportedMediaType},
		{"bad content type", http.MethodPost, "json;;", `{}`, 415, metav1.StatusReasonUnsupportedMediaType},
		{"too large", http.MethodPost, "", `{"allowed":true,"pad":"` + strings.Repeat("a", 64) + `"}`, 413, metav1.StatusReasonRequestEntityTooLarge},
		{"not JSON", http.MethodPost, "", "{", 400, metav1.StatusReasonBadRequest},
		{"wrong shape", http.MethodPost, "", `{"allowed":"yes"}`, 400, metav1.StatusReasonBadRequest},
		{"two documents", http.MethodPost, "", `{}{}`, 400, metav1.StatusReasonBadRequest},
	}
	for _, c := range cases {
		rec, _, ok := serveDecode(c.method, c.contentType, c.body)
		var status metav1.Status
		if err := json.Unmarshal(rec.Body.Bytes(), &status); err != nil {
			t.Fatalf("%s: body %q: %v", c.name, rec.Body.String(), err)
		}
		if ok || rec.Code != c.code || status.Reason != c.reason || status.Kind != "Status" {
			t.Errorf("%s: ok %v, %d %s, want %d %s (%s)", c.name, ok, rec.Code, status.Reason, c.code, c.reason, status.Message)
		}
	}
}

func TestDecodeRequestNamesAllowedMethod(t *testing.T) {
	rec, _, _ := serveDecode(http.MethodPut, "", `{}`)
	if got := rec.Header().Get("Allow"); got != http.MethodPost {
		t.Fatalf("Allow %q, want POST", got)
	}
}
