package proxy

import (
	"net/http"
	"strings"

	"github.com/kubesplit/kubesplit/services/aggregator/internal/filters"
)

// clientIdentityPrefixes name, in lower case, the header families through
// which a request could claim an identity: the front-proxy headers
// (X-Remote-User, -Group, -Uid, -Extra-*), impersonation (Impersonate-User,
// -Group, -Uid, -Extra-*) and kubesplit's own (X-Kubesplit-Identity). Whole
// families go, so that a variant a backend might trust one day is covered.
var clientIdentityPrefixes = []string{"x-remote-", "impersonate-", "x-kubesplit-"}

// stripClientIdentity deletes from h every header by which the client could
// speak for someone, and its credentials: the aggregator has authenticated
// them already, and a backend must not see a token it could replay.
func stripClientIdentity(h http.Header) {
	h.Del("Authorization")
	for name := range h {
		lower := strings.ToLower(name)
		for _, p := range clientIdentityPrefixes {
			if strings.HasPrefix(lower, p) {
				delete(h, name)
				break
			}
		}
	}
}

// propagateAuditID gives the backend the request id the client will see
// (set on the response by the aggregator's request-id filter), so that one
// id names the request in every service's logs and audit.
func propagateAuditID(out, resp http.Header) {
	if id := resp.Get(filters.HeaderAuditID); id != "" && out.Get(filters.HeaderAuditID) == "" {
		out.Set(filters.HeaderAuditID, id)
	}
}

// keepBackendAuditID drops the Audit-Id the aggregator set when the backend
// sends its own, which ReverseProxy would otherwise add as a second value:
// the backend's response passes through as it is.
func keepBackendAuditID(res *http.Response) error {
	a, ok := attemptFrom(res.Request.Context())
	if ok && res.Header.Get(filters.HeaderAuditID) != "" {
		a.respHeader.Del(filters.HeaderAuditID)
	}
	return nil
}
