// Package apiservice makes the aggregator serve the APIServices
// (apiregistration.k8s.io/v1) stored in the registry, as kube's aggregator
// does.
//
// A Controller watches APIServices through the registry. One with a
// service gets a backend of its own: its group version's requests are
// proxied there, with the caller's identity in the front-proxy headers
// (X-Remote-User, X-Remote-Group, X-Remote-Extra-*) over a connection on
// which the aggregator presents its proxy client certificate, and its
// group is listed in /apis. The backend is found at
// https://<name>.<namespace>.svc:<port>, or at the URL of the
// kubesplit.io/url annotation, for deploys outside a cluster. Its
// discovery path (/apis/<group>/<version>) is checked every few seconds
// and the outcome written to the APIService's Available condition; while
// it fails, its requests answer 503. An APIService without a service is
// served by kubesplit's own upstreams: it changes no route, and is
// Available as kube's local ones are.
//
// PublishAuthentication writes what extension servers need to trust the
// aggregator to the kube-system/extension-apiserver-authentication
// ConfigMap, as kube-apiserver does.
package apiservice
