package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesplit/kubesplit/pkg/webhook/webhooktest"
)

var (
	sarCodec = NewCodec(authorizationv1.SchemeGroupVersion, &authorizationv1.SubjectAccessReview{})
	sars     = authorizationv1.Resource("subjectaccessreviews")
)

// sampleSAR is a review as a client sends it, its type set.
func sampleSAR() *authorizationv1.SubjectAccessReview {
	return &authorizationv1.SubjectAccessReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview"},
		Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice", Groups: []string{"dev"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Resource: "pods", Namespace: "ns"}},
	}
}

// serveCodecDecode runs sarCodec.DecodeRequest on one request.
func serveCodecDecode(method, contentType string, body []byte, maxBytes int64) (*httptest.ResponseRecorder, *authorizationv1.SubjectAccessReview, bool) {
	r := httptest.NewRequest(method, "/review", bytes.NewReader(body))
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	got := &authorizationv1.SubjectAccessReview{}
	ok := sarCodec.DecodeRequest(rec, r, sars, maxBytes, got)
	return rec, got, ok
}

func TestCodecReadsEveryMediaType(t *testing.T) {
	want := sampleSAR()
	for _, ct := range []string{runtime.ContentTypeJSON, runtime.ContentTypeYAML, runtime.ContentTypeProtobuf, "application/vnd.kubernetes.protobuf; charset=utf-8"} {
		mt := strings.SplitN(ct, ";", 2)[0]
		rec, got, ok := serveCodecDecode(http.MethodPost, ct, webhooktest.Encode(t, mt, want), 1<<20)
		if !ok || rec.Body.Len() != 0 {
			t.Errorf("%s: ok %v, wrote %d %q", ct, ok, rec.Code, rec.Body.String())
			continue
		}
		// Protobuf carries the type in its envelope, not in the object.
		got.TypeMeta = want.TypeMeta
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %+v, want %+v", ct, got, want)
		}
	}
}

// TestCodecJSONUnchanged: JSON is read exactly as DecodeRequest reads it,
// quirks (case-insensitive names, strict single document) included.
func TestCodecJSONUnchanged(t *testing.T) {
	bodies := []string{
		`{"spec":{"user":"a","nonResourceAttributes":{"path":"/","verb":"get"}}}`,
		`{"Spec":{"User":"a"}}`,
		`{"spec":{"user":"a"}}{}`,
		`{"spec":{"user":7}}`,
		`{`,
		`{"spec":{"user":"` + strings.Repeat("a", 64) + `"}}`,
	}
	for _, body := range bodies {
		for _, ct := range []string{"", "application/json; charset=utf-8"} {
			recCodec, gotCodec, okCodec := serveCodecDecode(http.MethodPost, ct, []byte(body), 64)
			r := httptest.NewRequest(http.MethodPost, "/review", strings.NewReader(body))
			if ct != "" {
				r.Header.Set("Content-Type", ct)
			}
			rec := httptest.NewRecorder()
			got := &authorizationv1.SubjectAccessReview{}
			ok := DecodeRequest(rec, r, sars, 64, got)
			if okCodec != ok || recCodec.Code != rec.Code || recCodec.Body.String() != rec.Body.String() || !reflect.DeepEqual(gotCodec, got) {
				t.Errorf("%s %q: codec %v %d %q %+v, DecodeRequest %v %d %q %+v", ct, body,
					okCodec, recCodec.Code, recCodec.Body, gotCodec, ok, rec.Code, rec.Body, got)
			}
		}
	}
}

func TestCodecRejects(t *testing.T) {
	proto := runtime.ContentTypeProtobuf
	good := webhooktest.Encode(t, proto, sampleSAR())
	tokenReview := webhooktest.Encode(t, proto, &authenticationv1.TokenReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "TokenReview"},
		Spec:     authenticationv1.TokenReviewSpec{Token: "t"}})
	cases := []struct {
		name, method, contentType string
		body                      []byte
		code                      int
		reason                    metav1.StatusReason
	}{
		{"GET", http.MethodGet, proto, good, 405, metav1.StatusReasonMethodNotAllowed},
		{"CBOR", http.MethodPost, "application/cbor", good, 415, metav1.StatusReasonUnsupportedMediaType},
		{"text", http.MethodPost, "text/plain", good, 415, metav1.StatusReasonUnsupportedMediaType},
		{"oversized protobuf", http.MethodPost, proto, good, 413, metav1.StatusReasonRequestEntityTooLarge},
		{"empty protobuf", http.MethodPost, proto, nil, 400, metav1.StatusReasonBadRequest},
		{"JSON sent as protobuf", http.MethodPost, proto, []byte(`{"spec":{}}`), 400, metav1.StatusReasonBadRequest},
		{"truncated protobuf", http.MethodPost, proto, good[:len(good)/2], 400, metav1.StatusReasonBadRequest},
		{"garbage after the magic", http.MethodPost, proto, append([]byte("k8s\x00"), 0xff, 0xff, 0xff), 400, metav1.StatusReasonBadRequest},
		{"another kind", http.MethodPost, proto, tokenReview, 400, metav1.StatusReasonBadRequest},
		{"malformed YAML", http.MethodPost, runtime.ContentTypeYAML, []byte("spec: [\n"), 400, metav1.StatusReasonBadRequest},
	}
	for _, c := range cases {
		limit := int64(1 << 20)
		if c.code == 413 {
			limit = int64(len(c.body) - 1)
		}
		rec, got, ok := serveCodecDecode(c.method, c.contentType, c.body, limit)
		var status metav1.Status
		if err := json.Unmarshal(rec.Body.Bytes(), &status); err != nil {
			t.Fatalf("%s: body %q: %v", c.name, rec.Body.String(), err)
		}
		if ok || rec.Code != c.code || status.Reason != c.reason || got.Spec.User != "" {
			t.Errorf("%s: ok %v, %d %s, user %q; want %d %s (%s)", c.name, ok, rec.Code, status.Reason, got.Spec.User, c.code, c.reason, status.Message)
		}
	}
}

// TestCodec415NamesMediaTypes: the 415 says what would have been read.
func TestCodec415NamesMediaTypes(t *testing.T) {
	rec, _, _ := serveCodecDecode(http.MethodPost, "text/plain", nil, 64)
	for _, mt := range []string{runtime.ContentTypeJSON, runtime.ContentTypeYAML, runtime.ContentTypeProtobuf} {
		if !strings.Contains(rec.Body.String(), mt) {
			t.Errorf("415 %q does not name %s", rec.Body.String(), mt)
		}
	}
}

// TestDecodeRequestRefusesProtobuf: the JSON-only path, which admission
// uses, stays JSON-only.
func TestDecodeRequestRefusesProtobuf(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/review", bytes.NewReader(webhooktest.Encode(t, runtime.ContentTypeProtobuf, sampleSAR())))
	r.Header.Set("Content-Type", runtime.ContentTypeProtobuf)
	rec := httptest.NewRecorder()
	if DecodeRequest(rec, r, sars, 1<<20, &authorizationv1.SubjectAccessReview{}) || rec.Code != http.StatusUnsupportedMediaType {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}
