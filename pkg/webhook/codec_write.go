package webhook

import (
	"bytes"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesplit/kubesplit/pkg/apierror"
)

// Write answers r with code and obj in the media type r's Accept header
// negotiates (kube's 406 when it names none c supports), with that
// Content-Type. JSON is written by WriteJSON, byte for byte as before.
// Errors stay JSON Status, whatever was asked: client-go decodes an error
// by its Content-Type.
func (c *Codec) Write(w http.ResponseWriter, r *http.Request, code int, obj runtime.Object) {
	mt, ok := Negotiate(r.Header.Get("Accept"), c.mediaTypes)
	if !ok {
		apierror.Write(w, NotAcceptable(c.mediaTypes))
		return
	}
	if mt == runtime.ContentTypeJSON {
		WriteJSON(w, code, obj)
		return
	}
	var body bytes.Buffer
	if err := c.serializers[mt].Encode(obj, &body); err != nil {
		apierror.Write(w, apierrors.NewInternalError(err))
		return
	}
	w.Header().Set("Content-Type", mt)
	w.WriteHeader(code)
	_, _ = w.Write(body.Bytes())
}
