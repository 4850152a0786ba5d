// Package discovery routes the aggregator's API requests by path to the
// upstream that serves them, and merges API discovery across upstreams so
// that kubectl api-resources shows what every service serves.
//
// The routing table is a list of rules, data rather than code, so that
// groups registered as APIServices can be added while the aggregator runs:
// /apis/authentication.k8s.io/… goes to authn, /apis/authorization.k8s.io/…
// to authz, the service-account token subresource to authn, and everything
// else under /api and /apis to the registry. GET /apis, the one discovery
// document that spans services, is assembled from every upstream's own
// /apis, each taking the groups the table routes to it; an upstream that
// does not answer drops out of the list instead of failing it. A client
// asking for aggregated discovery (apidiscovery.k8s.io/v2, as kubectl and
// client-go do first) gets the upstreams' aggregated documents merged
// the same way, with every APIService backend's group version, in kube's
// priority order (aggregated.go). /api,
// /apis/<group> and /apis/<group>/<version> belong to one upstream each and
// are forwarded like any request.
//
// SetAPIServices adds the group versions APIServices register with
// backends of their own, at run time: their rules are matched before the
// others, their groups are listed in /apis from the APIServices themselves
// in kube's priority order (as kube's aggregator lists them), and the
// aggregator answers /apis/<group> of those groups itself, since their
// versions may live on several backends.
package discovery
