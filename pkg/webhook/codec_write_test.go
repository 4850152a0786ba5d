package webhook

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesplit/kubesplit/pkg/webhook/webhooktest"
)

// writeWithAccept runs sarCodec.Write for a request with accept.
func writeWithAccept(accept string, obj runtime.Object) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/review", nil)
	if accept != "" {
		r.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	rec.Header().Set("X-Revision", "3")
	sarCodec.Write(rec, r, http.StatusCreated, obj)
	return rec
}

func TestCodecWriteNegotiates(t *testing.T) {
	want := sampleSAR()
	want.Status.Allowed = true
	cases := []struct{ accept, mediaType string }{
		{"", runtime.ContentTypeJSON},
		{"application/json", runtime.ContentTypeJSON},
		{"application/vnd.kubernetes.protobuf,application/json", runtime.ContentTypeProtobuf},
		{"application/json;q=0.9, application/yaml", runtime.ContentTypeYAML},
	}
	for _, c := range cases {
		rec := writeWithAccept(c.accept, want)
		if rec.Code != 201 || rec.Header().Get("Content-Type") != c.mediaType || rec.Header().Get("X-Revision") != "3" {
			t.Errorf("%q: %d %v", c.accept, rec.Code, rec.Header())
			continue
		}
		got := &authorizationv1.SubjectAccessReview{}
		if _, _, err := webhooktest.Serializer(t, c.mediaType).Decode(rec.Body.Bytes(), nil, got); err != nil {
			t.Errorf("%q: %v", c.accept, err)
			continue
		}
		got.TypeMeta = want.TypeMeta
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %+v, want %+v", c.accept, got, want)
		}
	}
}

// An Accept naming nothing a review can be written as (a Table of it,
// text/html) is kube's 406, as JSON Status.
func TestCodecWriteRefusesWhatItCannotWrite(t *testing.T) {
	for _, accept := range []string{"text/html", "application/json;as=Table;v=v1;g=meta.k8s.io"} {
		rec := writeWithAccept(accept, sampleSAR())
		if rec.Code != http.StatusNotAcceptable || rec.Header().Get("Content-Type") != runtime.ContentTypeJSON ||
			!strings.Contains(rec.Body.String(), "NotAcceptable") {
			t.Errorf("%q: %d %s", accept, rec.Code, rec.Body)
		}
	}
}

// TestCodecWriteJSONUnchanged: a JSON answer is WriteJSON's, byte for byte.
func TestCodecWriteJSONUnchanged(t *testing.T) {
	rec := writeWithAccept("application/json", sampleSAR())
	plain := httptest.NewRecorder()
	WriteJSON(plain, http.StatusCreated, sampleSAR())
	if rec.Body.String() != plain.Body.String() || rec.Header().Get("Content-Type") != plain.Header().Get("Content-Type") {
		t.Fatalf("codec %q, WriteJSON %q", rec.Body, plain.Body)
	}
}
