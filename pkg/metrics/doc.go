// Package metrics is the Prometheus metrics every kubesplit service
// serves at /metrics: the Go runtime's and the process's, and kube-apiserver's
// request metrics under kube's names where the concept is the same
// (apiserver_request_total, apiserver_request_duration_seconds,
// apiserver_current_inflight_requests), so that dashboards written for
// kube-apiserver read kubesplit's aggregator too.
package metrics
