// Package proxy forwards the aggregator's requests to the endpoints of one
// upstream, after authentication and authorization have run.
//
// It is a net/http/httputil.ReverseProxy with the aggregator's rules
// around it. The client's identity headers (X-Remote-*, Impersonate-*,
// X-Kubesplit-*) and its Authorization are stripped before the Decorate
// hook sets the signed identity, so that a backend only ever believes the
// aggregator. Watches and other long-running requests are streamed as the
// backend writes them. Failures follow DESIGN.md, "Failure behaviour": a
// request that reached no backend (no healthy endpoint, connection refused)
// answers 503 with Retry-After, since it is safe to send again; one that a
// backend took and then failed or timed out answers 504 Timeout without
// Retry-After, since a write may have happened and must not be replayed.
// Backend responses, errors included, pass through untouched.
package proxy
