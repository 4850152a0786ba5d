// Package audit writes kube-apiserver's audit log: audit.k8s.io/v1 Events,
// one JSON object a line, at the levels an audit.k8s.io/v1 Policy gives
// (None, Metadata, Request, RequestResponse) and the stages kube records
// (RequestReceived, ResponseStarted for long-running requests,
// ResponseComplete, Panic). The aggregator is where every request arrives,
// so it alone audits.
//
// Writing never slows a request: events go to a bounded buffer that one
// goroutine drains to the file (rotated by size), and when the buffer is
// full the event is dropped and counted rather than waited for.
//
// Secret data never reaches the log: requests about Secrets, TokenReviews
// and service-account tokens are audited at Metadata level at most,
// whatever the policy says, and no header is recorded.
package audit
