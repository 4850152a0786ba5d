// Package aggregator is kubesplit's front door: the process kubectl talks
// to. It terminates HTTPS (HTTP/2 included, as kube-apiserver does), runs
// the handler chain of DESIGN.md, "One request" (generic filters,
// authentication, impersonation, authorization), and forwards each request
// to the upstream that serves its path with a signed identity assertion,
// so that a backend never has to believe a header on its own. Group
// versions registered as APIServices with a service go instead to their
// own backends, as kube's aggregator sends them: the caller in the
// X-Remote-* headers, over a connection on which the aggregator presents
// its proxy client certificate (see the apiservice package).
//
// The same Start serves the split composition (authn and authz as remote
// webhooks) and the fused one (a local token file, built-in authorization
// modes): the chain holds an authn.Authenticator and an authz.Authorizer
// and never knows which kind it holds.
package aggregator
