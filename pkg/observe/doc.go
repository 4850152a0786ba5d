// Package observe serves what a process tells about itself: its metrics at
// /metrics and Go's profiles at /debug/pprof. As in kube, both are
// non-resource URLs that only authorized users may read (system:monitoring
// for /metrics, cluster-admin for both).
//
// The aggregator authorizes them with its own chain. A backend accepts
// API requests only from the aggregator, but a scraper reaches each
// backend replica directly, so backends delegate instead, as kube's own
// components (controller-manager, scheduler) do: the caller's bearer token
// is checked with a TokenReview and its access with a SubjectAccessReview,
// both asked of the API through the aggregator with the backend's own
// credentials (Guard).
package observe
