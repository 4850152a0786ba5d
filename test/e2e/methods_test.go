package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestUnservedMethodsAnswerStatus sends methods no path serves, through
// the aggregator to each backend, as the admin: each answer is kube's 405
// MethodNotAllowed Status, never a bare status line or plain text.
func TestUnservedMethodsAnswerStatus(t *testing.T) {
	s := startAdmissionStack(t)
	c := s.HTTPClient(t)
	for _, req := range []struct{ method, path string }{
		{"BREW", "/api/v1/namespaces/default/configmaps"},
		{"PUT", "/apis/authorization.k8s.io/v1/subjectaccessreviews"},
		{"DELETE", "/apis/authentication.k8s.io/v1/tokenreviews"},
		{"BREW", "/apis/authentication.k8s.io/v1/selfsubjectreviews"},
		{"POST", "/version"},
	} {
		r, err := http.NewRequest(req.method, s.Aggregator.URL+req.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Header.Set("Authorization", "Bearer "+s.AdminToken)
		resp, err := c.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var st metav1.Status
		if resp.StatusCode != http.StatusMethodNotAllowed || json.Unmarshal(body, &st) != nil ||
			st.Kind != "Status" || st.Reason != metav1.StatusReasonMethodNotAllowed {
			t.Errorf("%s %s: %d %q, want a 405 MethodNotAllowed Status", req.method, req.path, resp.StatusCode, body)
		}
	}
}
