package admission

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kubeReview is a review as kube-apiserver's webhook dispatcher sends it:
// an UPDATE through the deployments/scale subresource, made as a dry run.
const kubeReview = `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1",
 "request":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002",
  "kind":{"group":"autoscaling","version":"v1","kind":"Scale"},
  "resource":{"group":"apps","version":"v1","resource":"deployments"},"subResource":"scale",
  "requestKind":{"group":"autoscaling","version":"v1","kind":"Scale"},
  "requestResource":{"group":"apps","version":"v1beta1","resource":"deployments"},"requestSubResource":"scale",
  "name":"my-deployment","namespace":"my-namespace","operation":"UPDATE",
  "userInfo":{"username":"admin","uid":"014fbff9a07c","groups":["system:authenticated","my-admin-group"],"extra":{"some-key":["some-value1","some-value2"]}},
  "object":{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"my-deployment","labels":{}},"spec":{"replicas":3}},
  "oldObject":{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"my-deployment"},"spec":{"replicas":2}},
  "options":{"apiVersion":"meta.k8s.io/v1","kind":"UpdateOptions"},
  "dryRun":true}}`

// serve posts body to h with content type ct and returns the recorder.
func serve(h http.Handler, method, ct, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "/admit", strings.NewReader(body))
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// answerOf decodes a 200 answer.
func answerOf(t *testing.T, rec *httptest.ResponseRecorder) *admissionv1.AdmissionResponse {
	t.Helper()
	if rec.Code != http.StatusOK {
		t.Fatalf("code %d: %s", rec.Code, rec.Body)
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &review); err != nil {
		t.Fatal(err)
	}
	if review.TypeMeta != reviewTypeMeta || review.Response == nil || review.Request != nil {
		t.Fatalf("answer %s", rec.Body)
	}
	return review.Response
}

func TestHandlerAnswersAsKubeExpects(t *testing.T) {
	var seen *Attributes
	h := NewAdmissionReviewHandler(Mutating(AdmitterFunc(func(_ context.Context, a *Attributes) (*Result, error) {
		seen = a
		return &Result{Allowed: true, Patch: []byte(`[{"op":"replace","path":"/spec/replicas","value":5}]`),
			Warnings: []string{"scaled"}, AuditAnnotations: map[string]string{"scaler": "yes"}}, nil
	})))
	resp := answerOf(t, serve(h, http.MethodPost, "application/json", kubeReview))

	if resp.UID != "705ab4f5-6393-11e8-b7cc-42010a800002" || !resp.Allowed || resp.Result != nil {
		t.Errorf("response %+v", resp)
	}
	if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Errorf("patchType %v", resp.PatchType)
	}
	if string(resp.Patch) != `[{"op":"replace","path":"/spec/replicas","value":5}]` {
		t.Errorf("patch %s", resp.Patch)
	}
	if len(resp.Warnings) != 1 || resp.AuditAnnotations["scaler"] != "yes" {
		t.Errorf("warnings %q annotations %v", resp.Warnings, resp.AuditAnnotations)
	}
	if seen == nil || seen.Operation != admissionv1.Update || !seen.DryRun || seen.SubResource != "scale" ||
		seen.RequestResource.Version != "v1beta1" || seen.RequestKind.Group != "autoscaling" ||
		seen.UserInfo.Extra["some-key"][1] != "some-value2" || labelsOf(seen.OldObject.Raw) != nil ||
		!strings.Contains(string(seen.Options.Raw), "UpdateOptions") {
		t.Errorf("admitter saw %+v", seen)
	}
}

func TestHandlerDenial(t *testing.T) {
	// A mutating admitter's patch on a denial is dropped, as kube drops it.
	h := NewAdmissionReviewHandler(Mutating(AdmitterFunc(func(context.Context, *Attributes) (*Result, error) {
		res := Deny(403, "no scaling on Fridays")
		res.Patch = []byte(`[{"op":"replace","path":"/spec/replicas","value":0}]`)
		return res, nil
	})))
	resp := answerOf(t, serve(h, http.MethodPost, "", kubeReview))
	want := metav1.Status{Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden, Message: "no scaling on Fridays"}
	if resp.Allowed || resp.Result == nil || *resp.Result != want {
		t.Errorf("response %+v, status %+v", resp, resp.Result)
	}
	if resp.Patch != nil || resp.PatchType != nil {
		t.Errorf("denial with patch %s", resp.Patch)
	}
}

// TestHandlerFailsClosed: an admitter that cannot decide, or breaks its
// contract, is a 500 Status, not an AdmissionReview that might allow.
func TestHandlerFailsClosed(t *testing.T) {
	cases := map[string]Admitter{
		"admitter error":              broken,
		"no admitter":                 nil,
		"validating admitter patches": patchingValidator,
		"no result":                   AdmitterFunc(func(context.Context, *Attributes) (*Result, error) { return nil, nil }),
		"patch that is not JSONPatch": Mutating(AdmitterFunc(func(context.Context, *Attributes) (*Result, error) {
			return &Result{Allowed: true, Patch: []byte(`{"spec":{}}`)}, nil
		})),
		"a chain whose admitter fails": mustChain(t, addLabel("a", "b"), broken),
	}
	for name, a := range cases {
		rec := serve(NewAdmissionReviewHandler(a), http.MethodPost, "", kubeReview)
		var status metav1.Status
		if err := json.Unmarshal(rec.Body.Bytes(), &status); err != nil || status.Kind != "Status" {
			t.Fatalf("%s: body %s is not a Status", name, rec.Body)
		}
		if rec.Code != 500 || status.Reason != metav1.StatusReasonInternalError {
			t.Errorf("%s: %d %s, want 500 InternalError", name, rec.Code, status.Reason)
		}
	}
}

func TestHandlerRejectsMalformedReviews(t *testing.T) {
	review := func(replace, with string) string { return strings.Replace(kubeReview, replace, with, 1) }
	cases := []struct {
		name, method, ct, body string
		code                   int
		reason                 metav1.StatusReason
	}{
		{"GET", http.MethodGet, "", "", 405, metav1.StatusReasonMethodNotAllowed},
		{"not JSON", http.MethodPost, "", "{", 400, metav1.StatusReasonBadRequest},
		{"two documents", http.MethodPost, "", kubeReview + kubeReview, 400, metav1.StatusReasonBadRequest},
		{"YAML", http.MethodPost, "application/yaml", kubeReview, 415, metav1.StatusReasonUnsupportedMediaType},
		{"bad content type", http.MethodPost, "json;;", kubeReview, 415, metav1.StatusReasonUnsupportedMediaType},
		{"over 3 MiB", http.MethodPost, "", review(`"name":"my-deployment"`, `"name":"`+strings.Repeat("a", MaxReviewBytes)+`"`), 413, metav1.StatusReasonRequestEntityTooLarge},
		{"v1beta1", http.MethodPost, "", review("admission.k8s.io/v1", "admission.k8s.io/v1beta1"), 400, metav1.StatusReasonBadRequest},
		{"another kind", http.MethodPost, "", review(`"kind":"AdmissionReview"`, `"kind":"TokenReview"`), 400, metav1.StatusReasonBadRequest},
		{"no type", http.MethodPost, "", review(`"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1",`, ""), 400, metav1.StatusReasonBadRequest},
		{"no request", http.MethodPost, "", `{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1"}`, 400, metav1.StatusReasonBadRequest},
		{"no uid", http.MethodPost, "", review(`"uid":"705ab4f5-6393-11e8-b7cc-42010a800002",`, ""), 400, metav1.StatusReasonBadRequest},
		{"unknown operation", http.MethodPost, "", review(`"operation":"UPDATE"`, `"operation":"PATCH"`), 400, metav1.StatusReasonBadRequest},
		{"dryRun not a bool", http.MethodPost, "", review(`"dryRun":true`, `"dryRun":"yes"`), 400, metav1.StatusReasonBadRequest},
	}
	h := NewAdmissionReviewHandler(allowAll)
	for _, c := range cases {
		rec := serve(h, c.method, c.ct, c.body)
		var status metav1.Status
		if err := json.Unmarshal(rec.Body.Bytes(), &status); err != nil || status.Kind != "Status" {
			t.Fatalf("%s: body %.200s is not a Status", c.name, rec.Body)
		}
		if rec.Code != c.code || status.Reason != c.reason {
			t.Errorf("%s: %d %s, want %d %s (%s)", c.name, rec.Code, status.Reason, c.code, c.reason, status.Message)
		}
	}
	// The same review, well-formed, is answered.
	answerOf(t, serve(h, http.MethodPost, "application/json; charset=utf-8", kubeReview))
}
