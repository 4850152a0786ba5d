// Package generated holds the OpenAPI definitions of the built-in types the
// registry serves, keyed by their REST-friendly model names
// (io.k8s.api.core.v1.Pod). zz_generated.openapi.go is written by
// hack/update-openapi.sh; do not edit it by hand.
package generated
