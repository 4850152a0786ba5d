package identity

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// MaxBodyBytes is the largest body SetHeader reads into memory to digest
// it before sending, and so the largest a client can stream through the
// aggregator: no backend accepts more (kube-apiserver's limit for a
// request is 3 MiB).
const MaxBodyBytes = 3 << 20

// ErrBodyTooLarge means a request's body is over the limit it was read
// with; answer it 413.
var ErrBodyTooLarge = errors.New("identity: request body too large")

// emptyBodyDigest is bodyDigest of no body at all, computed once: reads
// carry none, and must not pay for hashing one.
var emptyBodyDigest = func() string {
	sum := sha256.Sum256(nil)
	return b64(sum[:])
}()

// hasBody reports whether r has a body to send or to read. A server sets
// http.NoBody on a request without one, http.NewRequest on one given an
// empty reader.
func hasBody(r *http.Request) bool {
	return r.Body != nil && r.Body != http.NoBody
}

// bodyDigest is the sha256 of r's body, read through r.GetBody so that
// r.Body is left for the transport to send. A body that cannot be read
// again is an error: BufferBody makes it readable again. One that can is
// hashed whatever its size, as it streams: its sender holds it already,
// and the backend's limit is for the backend to answer.
func bodyDigest(r *http.Request) (string, error) {
	if !hasBody(r) {
		return emptyBodyDigest, nil
	}
	if r.GetBody == nil {
		return "", errors.New("identity: the body of a request to sign must be readable twice (see BufferBody)")
	}
	body, err := r.GetBody()
	if err != nil {
		return "", fmt.Errorf("identity: reading the body again: %w", err)
	}
	defer body.Close()
	h := sha256.New()
	if _, err := io.Copy(h, body); err != nil {
		return "", fmt.Errorf("identity: digesting the body: %w", err)
	}
	return b64(h.Sum(nil)), nil
}

// BufferBody reads r's body into memory, refusing more than limit bytes
// with an error wrapping ErrBodyTooLarge, so that it can be read again: by
// Sign, which digests it, and by the transport, which sends it (again on a
// retry). A request without a body, or whose body can already be read
// again (r.GetBody, as http.NewRequest sets for in-memory readers), is left
// as it is. The original body is closed, as a RoundTripper must.
func BufferBody(r *http.Request, limit int64) error {
	if !hasBody(r) || r.GetBody != nil {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	_ = r.Body.Close()
	if err != nil {
		return fmt.Errorf("identity: reading the body: %w", err)
	}
	if int64(len(data)) > limit {
		return fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, limit)
	}
	// Its length is known now: the body goes with a Content-Length, not
	// chunked as the client may have sent it.
	r.ContentLength, r.TransferEncoding = int64(len(data)), nil
	if len(data) == 0 {
		r.Body, r.GetBody = http.NoBody, func() (io.ReadCloser, error) { return http.NoBody, nil }
		return nil
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	return nil
}
