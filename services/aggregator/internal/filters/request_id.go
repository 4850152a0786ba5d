package filters

import (
	"net/http"

	"github.com/google/uuid"

	"github.com/kubesplit/kubesplit/pkg/request"
)

// HeaderAuditID is the header carrying a request's id, kube's Audit-ID
// (spelled as net/http canonicalises it), so that kubectl users and kube
// tooling find it where they expect.
const HeaderAuditID = "Audit-Id"

// WithRequestID returns a middleware that gives every request an id, as
// kube's WithAuditInit does: the Audit-ID the client sent, kept as it is, or
// else a fresh UUID. The id is put in the request's context (request.AuditIDFrom)
// and echoed in the Audit-Id response header, unless an outer handler has
// already set that header.
func WithRequestID() func(http.Handler) http.Handler {
	return withRequestID(uuid.NewString)
}

func withRequestID(newID func() string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := r.Header.Get(HeaderAuditID)
			if id == "" {
				id = newID()
			}
			if w.Header().Get(HeaderAuditID) == "" {
				w.Header().Set(HeaderAuditID, id)
			}
			next.ServeHTTP(w, r.WithContext(request.WithAuditID(r.Context(), id)))
		})
	}
}
