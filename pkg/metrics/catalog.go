package metrics

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Catalog tells which resources a server serves. The request metrics name
// a request's group, version, resource and subresource only when its
// Catalog serves them: these labels come from the URL, before anyone is
// authenticated, and every distinct value would be a series kept for as
// long as the process lives.
//
// Serves runs on every request, so it must be cheap and must not allocate.
type Catalog interface {
	// Serves reports whether resource of group/version is served, and
	// when subresource is not empty, that subresource of it.
	Serves(group, version, resource, subresource string) bool
}

// CatalogFunc adapts a function to a Catalog.
type CatalogFunc func(group, version, resource, subresource string) bool

// Serves calls f.
func (f CatalogFunc) Serves(group, version, resource, subresource string) bool {
	return f(group, version, resource, subresource)
}

// Resource names a resource, or one subresource of it, that a server
// serves.
type Resource struct {
	Group, Version, Resource, Subresource string
}

// ResourceSet is a Catalog of a fixed set of resources, for a service
// that serves the same few whatever happens (authn, authz), or for a
// catalog that replaces its set as a whole when what is served changes.
type ResourceSet map[Resource]struct{}

// NewResourceSet returns a set of rs.
func NewResourceSet(rs ...Resource) ResourceSet {
	s := make(ResourceSet, len(rs))
	for _, r := range rs {
		s[r] = struct{}{}
	}
	return s
}

// Serves implements Catalog; a nil set serves nothing.
func (s ResourceSet) Serves(group, version, resource, subresource string) bool {
	_, ok := s[Resource{Group: group, Version: version, Resource: resource, Subresource: subresource}]
	return ok
}

// ResourcesOf lists what a discovery document lists: its resources, and
// their subresources, which discovery names "<resource>/<subresource>".
func ResourcesOf(list *metav1.APIResourceList) ([]Resource, error) {
	gv, err := schema.ParseGroupVersion(list.GroupVersion)
	if err != nil {
		return nil, err
	}
	rs := make([]Resource, 0, len(list.APIResources))
	for _, ar := range list.APIResources {
		resource, subresource, _ := strings.Cut(ar.Name, "/")
		rs = append(rs, Resource{Group: gv.Group, Version: gv.Version, Resource: resource, Subresource: subresource})
	}
	return rs, nil
}
