package filters

import (
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesplit/kubesplit/pkg/apierror"
)

// WithRequestBodyLimit returns a middleware that refuses a request body
// over max bytes (kube-apiserver's MaxRequestBodyBytes is 3 MiB) with 413
// RequestEntityTooLarge, before anything after it reads, buffers,
// authenticates or forwards the request:
//
//   - a body whose Content-Length is over max is refused at once, none of
//     it read;
//   - a body of unknown length (chunked) is counted as it is read, and
//     reading past the limit fails with *http.MaxBytesError, which the
//     reader answers 413 (the proxy does, as every body reader here
//     does), and tells net/http to close the connection after the answer
//     rather than drain the rest.
//
// The counting lets max+1 bytes through before it fails, so that a reader
// that enforces the same limit itself, by reading one byte more than it
// takes to tell a body over it (the audit capture, the identity's body
// buffer), sees the body is too large and answers 413 in its own way.
//
// Kube checks the limit in its handlers, after authentication; refusing
// first costs an oversized request no authentication or authorization
// call, and an anonymous flood of them nothing but the refusal.
func WithRequestBodyLimit(max int64) (func(http.Handler) http.Handler, error) {
	if max <= 0 {
		return nil, fmt.Errorf("%w: request body limit %d", ErrInvalidConfig, max)
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.ContentLength > max:
				apierror.Write(w, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", max)))
				return
			case r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody:
				// net/http already holds a body with a Content-Length to
				// it, so only one without needs counting.
				r.Body = http.MaxBytesReader(w, r.Body, max+1)
			}
			next.ServeHTTP(w, r)
		})
	}, nil
}
