package apidiscovery

import (
	"net/http"

	"github.com/kubesplit/kubesplit/pkg/apierror"
)

// Source returns the aggregated document to serve for a request, or an
// error (a Status error) to answer instead.
type Source func(r *http.Request) (*Document, error)

// Serve wraps the legacy discovery handler of /api or /apis: a request
// negotiating the aggregated document gets aggregated's, one asking for a
// legacy document gets legacy, and any other kube's 406.
func Serve(legacy http.Handler, aggregated Source) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out, err := Negotiate(r.Header.Get("Accept"))
		if err != nil {
			if r.URL.Path == "/api" && !asksDiscoveryGroup(r.Header.Get("Accept")) {
				// Kube hands such a request to the legacy /api, a
				// go-restful route, which words its 406 its own way.
				err = legacyAPINotAcceptable()
			}
			apierror.Write(w, err)
			return
		}
		if !out.Aggregated {
			legacy.ServeHTTP(w, r)
			return
		}
		doc, err := aggregated(r)
		if err != nil {
			apierror.Write(w, err)
			return
		}
		doc.Write(w, r, out)
	})
}
