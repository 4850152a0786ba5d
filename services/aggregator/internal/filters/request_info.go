package filters

import (
	"net/http"

	"github.com/kubesplit/kubesplit/pkg/request"
)

// WithRequestInfo returns a middleware that makes the request's
// requestinfo.Info available to every later stage (request.InfoOf), so
// the URL is read once per request, not once per stage.
//
// The filters that need the info earlier (WithMaxInFlight and
// WithRequestDeadline, to recognise long-running requests) attach it the
// same way; whichever runs first parses, the others reuse its result.
func WithRequestInfo() func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, r = request.AttachInfo(r)
			next.ServeHTTP(w, r)
		})
	}
}
