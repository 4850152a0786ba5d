// Package apidiscovery serves aggregated discovery (apidiscovery.k8s.io/v2
// APIGroupDiscoveryList) at /api and /apis as kube-apiserver v1.37 does:
// Accept negotiation that prefers an aggregated clause anywhere in the
// header over the legacy documents, kube's 406 for a header naming
// neither, an ETag (kube's SHA-512 of the document) with 304 on
// If-None-Match and Vary: Accept, in JSON, YAML and protobuf. v2beta1 is
// not served: kube 1.37 locks AggregatedDiscoveryRemoveBetaType on, so a
// header asking only for it gets the legacy document's 406.
//
// It also builds documents from legacy APIResourceLists as kube does, and
// merges documents from several upstreams in kube's priority order, so
// the aggregator can answer for every service behind it.
package apidiscovery
