// Package upstream keeps the set of endpoints behind one backend service
// of the aggregator (registry, authn, authz …) and chooses one per request.
//
// An upstream is configured as a list of base URLs. A URL whose host is an
// IP address is one endpoint; a URL whose host is a DNS name stands for
// every address the name resolves to, re-resolved every few seconds, so
// that a headless Service's replicas are all balanced and new ones are
// picked up without a restart. Every endpoint is checked on its health path
// (/readyz) and a connection error reported by the proxy takes it out at
// once; Pick goes round-robin over the healthy ones and fails with
// ErrNoEndpoint, never with a guess, when there are none.
package upstream
