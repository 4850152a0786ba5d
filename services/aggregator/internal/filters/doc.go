// Package filters holds the aggregator's HTTP filters, one behaviour a
// file: request id, max requests in flight, request deadline, request
// info, body limit, authentication, impersonation, API Priority and
// Fairness, trace attributes. Each is a chi middleware,
// func(http.Handler) http.Handler; the aggregator's buildChain lists them,
// with the shared ones (the server span, panic recovery, audit, metrics,
// authorization), in the order a request meets them.
//
// They follow kube-apiserver's filters of the same purpose
// (k8s.io/apiserver/pkg/server/filters and pkg/endpoints/filters) in what a
// client observes: the Audit-Id header, which requests count as
// long-running, the impersonation checks, 429 with Retry-After, 504
// Timeout. Every error they answer is a metav1.Status written by
// pkg/apierror.
package filters
