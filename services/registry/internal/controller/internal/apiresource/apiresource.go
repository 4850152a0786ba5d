// Package apiresource discovers the resources the API serves, in the
// preferred version of each group, so controllers can list, watch and delete
// any of them (CRDs included) without a compiled-in table.
package apiresource

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// Resource is one served resource in its group's preferred version.
type Resource struct {
	schema.GroupVersionResource
	Kind       string
	Namespaced bool
	Verbs      []string
}

// Can reports whether the resource supports every verb given.
func (r Resource) Can(verbs ...string) bool {
	for _, v := range verbs {
		if !slices.Contains(r.Verbs, v) {
			return false
		}
	}
	return true
}

// Set is the result of one discovery.
type Set struct {
	all  []Resource
	byGK map[schema.GroupKind]Resource
	// Failed lists the group versions whose discovery failed; their
	// resources are missing from the set, which callers must not read as
	// "no longer served".
	Failed map[schema.GroupVersion]error
}

// Discover asks the server for its preferred resources. A failure of some
// groups still returns a set, with those groups in Failed; only a failure to
// discover anything is an error.
func Discover(ctx context.Context, d discovery.DiscoveryInterface) (*Set, error) {
	lists, err := discovery.ServerPreferredResourcesWithContext(ctx, discovery.ToDiscoveryInterfaceWithContext(d))
	var failed map[schema.GroupVersion]error
	if err != nil {
		var partial *discovery.ErrGroupDiscoveryFailed
		if !errors.As(err, &partial) {
			return nil, fmt.Errorf("discovering resources: %w", err)
		}
		failed = partial.Groups
	}
	s := FromLists(lists)
	s.Failed = failed
	return s, nil
}

// FromLists builds a set from discovery documents, skipping subresources
// and entries it cannot parse.
func FromLists(lists []*metav1.APIResourceList) *Set {
	s := &Set{byGK: map[schema.GroupKind]Resource{}}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			res := Resource{GroupVersionResource: gv.WithResource(r.Name), Kind: r.Kind,
				Namespaced: r.Namespaced, Verbs: slices.Clone(r.Verbs)}
			s.all = append(s.all, res)
			s.byGK[schema.GroupKind{Group: gv.Group, Kind: r.Kind}] = res
		}
	}
	sort.Slice(s.all, func(i, j int) bool { return s.all[i].String() < s.all[j].String() })
	return s
}

// All returns every resource, sorted by name.
func (s *Set) All() []Resource { return slices.Clone(s.all) }

// Filter returns the resources keep accepts.
func (s *Set) Filter(keep func(Resource) bool) []Resource {
	var out []Resource
	for _, r := range s.all {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// ForKind resolves a group and kind, as an ownerReference names its owner,
// to the resource that serves it. Any version of the group resolves to the
// preferred one, since an object is the same object in every version.
func (s *Set) ForKind(gk schema.GroupKind) (Resource, bool) {
	r, ok := s.byGK[gk]
	return r, ok
}

// GroupFailed reports whether discovery of the group failed, in any version.
func (s *Set) GroupFailed(group string) bool {
	for gv := range s.Failed {
		if gv.Group == group {
			return true
		}
	}
	return false
}
