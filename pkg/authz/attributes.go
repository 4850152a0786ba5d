package authz

import (
	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// Attributes are what an authorizer decides on: who asks to do what to
// which resource or path. They hold exactly what a SubjectAccessReview
// carries, so a local authorizer and a remote one see the same request, and
// the cache can use the whole value as its key.
type Attributes struct {
	// User is the caller as authentication found it (the same type a
	// TokenReview answers with).
	User authenticationv1.UserInfo

	// Verb is the Kubernetes verb (get, list, watch, create, …) for a
	// resource request, the lower-case HTTP method for a non-resource one.
	Verb string

	// The resource fields are set only when ResourceRequest is true.
	Namespace   string
	APIGroup    string
	APIVersion  string
	Resource    string
	Subresource string
	Name        string

	// ResourceRequest tells a request on an API resource from one on a plain
	// path (/healthz, /version, discovery).
	ResourceRequest bool

	// Path is set only for non-resource requests: a SubjectAccessReview
	// carries no path for a resource request, and leaving it out keeps two
	// spellings of one resource URL from splitting the cache.
	Path string
}

// FromRequestInfo builds the attributes of a request made by user and
// described by info.
func FromRequestInfo(user authenticationv1.UserInfo, info *requestinfo.Info) Attributes {
	a := Attributes{User: user}
	if info == nil {
		return a
	}
	a.Verb = info.Verb
	if !info.IsResourceRequest {
		a.Path = info.Path
		return a
	}
	a.ResourceRequest = true
	a.Namespace = info.Namespace
	a.APIGroup = info.APIGroup
	a.APIVersion = info.APIVersion
	a.Resource = info.Resource
	a.Subresource = info.Subresource
	a.Name = info.Name
	return a
}
