package identity

import (
	"crypto/sha256"
	"net/http"
	"net/url"
)

// requestBinding digests what a request does: its method, its path as sent
// on the wire and its query, so that an assertion is good for that request
// only.
//
// What it protects against: an assertion captured on its way to a backend
// (from a log, a debugging proxy, a compromised sidecar) cannot be replayed,
// within its lifetime, to another URL of that backend: a GET of one secret
// does not become a GET of another, a list does not become a DELETE, and a
// ?dryRun=All does not become a real write.
//
// The body is bound beside it (claims.Body, checked as the backend reads
// it, see checkBody), and a write's assertion is good once (see spent), so
// a captured admin write can neither carry another body nor be sent again.
// What is left is replaying a read as it is, within the lifetime: it
// changes nothing and reveals what the capture already showed. TLS on
// every hop is what keeps assertions from being captured in the first
// place.
//
// The query is canonicalised (parsed and re-encoded in key order) because
// proxies are free to re-encode it while keeping its meaning; the path is
// compared in its escaped form so that a%2Fb and a/b stay different.
func requestBinding(r *http.Request) string {
	method := r.Method
	if method == "" {
		method = http.MethodGet // what net/http sends for an empty method
	}
	// A malformed pair is dropped here exactly as r.URL.Query() drops it
	// when the backend reads the request, so the error carries nothing.
	query, _ := url.ParseQuery(r.URL.RawQuery)
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/" // what net/http sends for an empty path
	}
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write([]byte(path))
	h.Write([]byte{0})
	h.Write([]byte(query.Encode()))
	return b64(h.Sum(nil))
}
