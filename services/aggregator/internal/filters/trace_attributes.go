package filters

import (
	"net/http"

	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/tracing"
)

// WithTraceAttributes names the request's span by its route and adds the
// Kubernetes attributes and the user it acts as, and tells the client the
// trace in W3C's traceresponse header, so that a failed request's trace
// can be looked up.
func WithTraceAttributes(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, _ := request.UserFrom(r.Context())
		info, _ := request.InfoFrom(r.Context())
		tracing.Describe(r.Context(), r.Method, info, user.Username)
		if v := tracing.Response(r.Context()); v != "" {
			w.Header().Set("Traceresponse", v)
		}
		next.ServeHTTP(w, r)
	})
}
