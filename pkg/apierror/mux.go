package apierror

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ServeMux serves mux, answering what the ServeMux itself refuses (a path
// it serves for other methods only, or none at all) with a Status instead
// of its plain text, so that every client reads kube's error: a
// MethodNotAllowed Status with the Allow header, or a NotFound one.
func ServeMux(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A matched pattern is served as usual: ServeMux sets the path
		// values its handlers read.
		if _, pattern := mux.Handler(r); pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(&refusal{ResponseWriter: w, r: r}, r)
	})
}

// NotFoundPath is kube's answer to a path it serves nothing at.
func NotFoundPath(method string) error {
	return apierrors.NewGenericServerResponse(http.StatusNotFound, method, schema.GroupResource{}, "",
		"the server could not find the requested resource", 0, false)
}

// refusal turns ServeMux's plain-text 404 and 405 into Status bodies and
// passes anything else (its redirects) on.
type refusal struct {
	http.ResponseWriter
	r        *http.Request
	replaced bool
}

func (w *refusal) WriteHeader(code int) {
	var err error
	switch code {
	case http.StatusMethodNotAllowed:
		err = apierrors.NewMethodNotSupported(schema.GroupResource{}, w.r.Method)
	case http.StatusNotFound:
		err = NotFoundPath(w.r.Method)
	default:
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.replaced = true
	w.Header().Del("Content-Length")
	Write(w.ResponseWriter, err)
}

func (w *refusal) Write(b []byte) (int, error) {
	if w.replaced {
		return len(b), nil // the plain text the Status replaced
	}
	return w.ResponseWriter.Write(b)
}
