// Package filters holds the aggregator's generic HTTP filters: the stages of
// its handler chain that know nothing about who the caller is (panic
// recovery, request id, max requests in flight, request deadline, request
// info). Each is a chi-style middleware, func(http.Handler) http.Handler, in
// a file of its own; Chain composes them in the order they run.
//
// They follow kube-apiserver's filters of the same purpose
// (k8s.io/apiserver/pkg/server/filters and pkg/endpoints/filters) in what a
// client observes: the Audit-Id header, which requests count as
// long-running, 429 with Retry-After, 504 Timeout. Every error they answer
// is a metav1.Status written by pkg/apierror.
package filters
