package identity

import (
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"net/http"
)

// checkBody makes r's body prove that it is the one the assertion names by
// digest. A request without a body is checked at once. Otherwise r.Body
// becomes a reader that hashes what the handler reads and, at the end,
// fails the read unless the digest matches: the handler holds the whole
// body only once it is proven, and answers an error instead of acting on
// it. Every backend handler reads a body whole (io.ReadAll) before it acts
// on any of it, so nothing is stored from a body that was not asserted. A
// handler that ignores the body never acts on it either.
func checkBody(r *http.Request, digest string) error {
	if !hasBody(r) {
		if digest != emptyBodyDigest {
			return fmt.Errorf("%w: issued for a request with a body, presented without one", ErrWrongBody)
		}
		return nil
	}
	r.Body = &checkedBody{body: r.Body, hash: sha256.New(), want: digest}
	return nil
}

// checkedBody is the body checkBody puts on a request.
type checkedBody struct {
	body io.ReadCloser
	hash hash.Hash
	want string
	// end is what every read returns once the body has ended: io.EOF if
	// it was the asserted one, an error wrapping ErrWrongBody if not.
	end error
}

// Read implements io.Reader. The read that reaches the end withholds its
// bytes when the digest does not match: net/http's server returns the
// last bytes of a body with io.EOF, so a reader that stops at the
// declared length still sees the error.
func (b *checkedBody) Read(p []byte) (int, error) {
	if b.end != nil {
		return 0, b.end
	}
	n, err := b.body.Read(p)
	b.hash.Write(p[:n])
	if err != io.EOF {
		return n, err
	}
	if got := b64(b.hash.Sum(nil)); got != b.want {
		b.end = fmt.Errorf("%w: the body's digest is not the asserted one", ErrWrongBody)
		return 0, b.end
	}
	b.end = io.EOF
	return n, io.EOF
}

// Close implements io.Closer.
func (b *checkedBody) Close() error { return b.body.Close() }
