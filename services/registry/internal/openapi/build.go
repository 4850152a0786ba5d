package openapi

import (
	"errors"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/common"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// catalog is the resource table in the form the document builders need:
// the routes of each group-version and the definitions they refer to.
type catalog struct {
	resources []*resource.Info
	gvs       []schema.GroupVersion // sorted, for stable documents
	routes    map[schema.GroupVersion][]common.Route
	// definitions of the v2 and the v3 documents, which differ in what
	// they publish of custom resources.
	definitionsV2, definitionsV3 common.GetOpenAPIDefinitions
}

func newCatalog(resources []*resource.Info) (*catalog, error) {
	c := &catalog{resources: resources, routes: map[schema.GroupVersion][]common.Route{}}
	for _, r := range resources {
		if err := checkInfo(r); err != nil {
			return nil, err
		}
		gv := r.GroupVersion()
		if _, ok := c.routes[gv]; !ok {
			c.gvs = append(c.gvs, gv)
		}
		kind, typed := definitionName(r.GroupVersionKind())
		list, _ := definitionName(gv.WithKind(r.ListKind()))
		c.routes[gv] = append(c.routes[gv], newResourcePaths(r, kind, list, typed).routes()...)
	}
	sort.Slice(c.gvs, func(i, j int) bool { return gvPath(c.gvs[i]) < gvPath(c.gvs[j]) })
	c.definitionsV2 = definitionsFor(resources, false)
	c.definitionsV3 = definitionsFor(resources, true)
	return c, nil
}

// checkInfo rejects entries the paths cannot be built from.
func checkInfo(r *resource.Info) error {
	switch {
	case r == nil:
		return errors.New("openapi: nil resource")
	case r.Version == "" || r.Resource == "" || r.Kind == "":
		return fmt.Errorf("openapi: resource %q of %q needs a version, a resource and a kind", r.Resource, r.APIVersion())
	}
	return nil
}

// containers returns the routes of the given group-versions, one container
// each, as the builders take them.
func (c *catalog) containers(gvs ...schema.GroupVersion) []common.RouteContainer {
	out := make([]common.RouteContainer, 0, len(gvs))
	for _, gv := range gvs {
		out = append(out, &routes{root: rootPath(gv), list: c.routes[gv]})
	}
	return out
}

// gvPath is how the v3 discovery document names a group-version: api/v1,
// apis/apps/v1.
func gvPath(gv schema.GroupVersion) string {
	return rootPath(gv)[1:]
}
