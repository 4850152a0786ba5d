package openapi

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

func buildV2(t *testing.T, resources []*resource.Info) *spec.Swagger {
	t.Helper()
	c, err := newCatalog(resources)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := c.buildV2()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// operation returns the operation of a method on a path, or nil.
func operation(doc *spec.Swagger, path, method string) *spec.Operation {
	item, ok := doc.Paths.Paths[path]
	if !ok {
		return nil
	}
	return map[string]*spec.Operation{
		http.MethodGet: item.Get, http.MethodPost: item.Post, http.MethodPut: item.Put,
		http.MethodPatch: item.Patch, http.MethodDelete: item.Delete,
	}[method]
}

// paramNames lists an operation's parameters with its path's, resolving
// shared ones.
func paramNames(doc *spec.Swagger, path string, op *spec.Operation) []string {
	var names []string
	for _, p := range append(append([]spec.Parameter{}, doc.Paths.Paths[path].Parameters...), op.Parameters...) {
		if ref := p.Ref.String(); ref != "" {
			p = doc.Parameters[strings.TrimPrefix(ref, "#/parameters/")]
		}
		names = append(names, p.Name)
	}
	sort.Strings(names)
	return names
}

func TestOperations(t *testing.T) {
	list := "allowWatchBookmarks continue fieldSelector labelSelector limit pretty resourceVersion resourceVersionMatch sendInitialEvents timeoutSeconds watch"
	cases := []struct {
		path, method, id, action, kind string
		params                         string // every parameter
	}{
		{"/api/v1/namespaces/{namespace}/pods", "GET", "listCoreV1NamespacedPod", "list", "Pod", "namespace " + list},
		{"/api/v1/namespaces/{namespace}/pods", "POST", "createCoreV1NamespacedPod", "post", "Pod",
			"body dryRun fieldManager fieldValidation namespace pretty"},
		{"/api/v1/namespaces/{namespace}/pods", "DELETE", "deleteCoreV1CollectionNamespacedPod", "deletecollection", "Pod",
			"body continue dryRun fieldSelector gracePeriodSeconds labelSelector limit namespace orphanDependents pretty " +
				"propagationPolicy resourceVersion resourceVersionMatch sendInitialEvents timeoutSeconds"},
		{"/api/v1/namespaces/{namespace}/pods/{name}", "GET", "readCoreV1NamespacedPod", "get", "Pod", "name namespace pretty"},
		{"/api/v1/namespaces/{namespace}/pods/{name}", "PUT", "replaceCoreV1NamespacedPod", "put", "Pod",
			"body dryRun fieldManager fieldValidation name namespace pretty"},
		{"/api/v1/namespaces/{namespace}/pods/{name}", "PATCH", "patchCoreV1NamespacedPod", "patch", "Pod",
			"body dryRun fieldManager fieldValidation force name namespace pretty"},
		{"/api/v1/namespaces/{namespace}/pods/{name}", "DELETE", "deleteCoreV1NamespacedPod", "delete", "Pod",
			"body dryRun gracePeriodSeconds name namespace orphanDependents pretty propagationPolicy"},
		{"/api/v1/namespaces/{namespace}/pods/{name}/status", "PATCH", "patchCoreV1NamespacedPodStatus", "patch", "Pod",
			"body dryRun fieldManager fieldValidation force name namespace pretty"},
		{"/api/v1/pods", "GET", "listCoreV1PodForAllNamespaces", "list", "Pod", list},
		{"/api/v1/watch/namespaces/{namespace}/pods", "GET", "watchCoreV1NamespacedPodList", "watchlist", "Pod", "namespace " + list},
		{"/api/v1/watch/namespaces/{namespace}/pods/{name}", "GET", "watchCoreV1NamespacedPod", "watch", "Pod", "name namespace " + list},
		{"/api/v1/watch/pods", "GET", "watchCoreV1PodListForAllNamespaces", "watchlist", "Pod", list},
		{"/api/v1/namespaces/{name}", "PATCH", "patchCoreV1Namespace", "patch", "Namespace",
			"body dryRun fieldManager fieldValidation force name pretty"},
		{"/api/v1/namespaces/{name}/finalize", "PUT", "replaceCoreV1NamespaceFinalize", "put", "Namespace",
			"body dryRun fieldManager fieldValidation name pretty"},
		{"/api/v1/watch/namespaces/{name}", "GET", "watchCoreV1Namespace", "watch", "Namespace", "name " + list},
		{"/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status", "GET", "readAppsV1NamespacedDeploymentStatus", "get", "Deployment",
			"name namespace pretty"},
		{"/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale", "GET", "readAppsV1NamespacedDeploymentScale", "get", "Scale",
			"name namespace pretty"},
		{"/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale", "PATCH", "patchAppsV1NamespacedDeploymentScale", "patch", "Scale",
			"body dryRun fieldManager fieldValidation force name namespace pretty"},
		{"/apis/rbac.authorization.k8s.io/v1/clusterroles", "GET", "listRbacAuthorizationV1ClusterRole", "list", "ClusterRole", list},
		{"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}", "PUT", "replaceCoordinationV1NamespacedLease", "put", "Lease",
			"body dryRun fieldManager fieldValidation name namespace pretty"},
	}
	doc := buildV2(t, resource.Builtins())
	for _, tc := range cases {
		op := operation(doc, tc.path, tc.method)
		if op == nil {
			t.Errorf("no %s %s", tc.method, tc.path)
			continue
		}
		if op.ID != tc.id {
			t.Errorf("%s %s: ID %q, want %q", tc.method, tc.path, op.ID, tc.id)
		}
		if got := op.Extensions[extAction]; got != tc.action {
			t.Errorf("%s %s: action %v, want %s", tc.method, tc.path, got, tc.action)
		}
		if got := gvkList(t, op.Extensions[extGVK]); len(got) != 1 || got[0].Kind != tc.kind {
			t.Errorf("%s %s: kind %v, want %s", tc.method, tc.path, got, tc.kind)
		}
		want := strings.Fields(tc.params)
		sort.Strings(want)
		if got := strings.Join(paramNames(doc, tc.path, op), " "); got != strings.Join(want, " ") {
			t.Errorf("%s %s: parameters\n  %s\nwant\n  %s", tc.method, tc.path, got, strings.Join(want, " "))
		}
	}
}

// TestEveryResourceIsPatchable checks, for every built-in resource, what
// kubectl relies on: a PATCH operation carrying the kind and fieldValidation
// and accepting every patch type, and the kind's definition carrying the
// kind too.
func TestEveryResourceIsPatchable(t *testing.T) {
	doc := buildV2(t, resource.Builtins())
	patchTypes := []string{"application/apply-patch+yaml", "application/json-patch+json",
		"application/merge-patch+json", "application/strategic-merge-patch+json"}
	for _, r := range resource.Builtins() {
		if r.ServedVerbs != nil && !slices.Contains(r.ServedVerbs, "patch") {
			continue
		}
		path := rootPath(r.GroupVersion()) + "/" + r.Resource + "/{name}"
		if r.Namespaced {
			path = rootPath(r.GroupVersion()) + "/namespaces/{namespace}/" + r.Resource + "/{name}"
		}
		op := operation(doc, path, http.MethodPatch)
		if op == nil {
			t.Errorf("%s: no PATCH %s", r.Resource, path)
			continue
		}
		want := gvk{r.Group, r.Version, r.Kind}
		if got := gvkList(t, op.Extensions[extGVK]); len(got) != 1 || got[0] != want {
			t.Errorf("%s: PATCH kind %v, want %v", r.Resource, got, want)
		}
		if !contains(paramNames(doc, path, op), "fieldValidation") {
			t.Errorf("%s: PATCH lacks fieldValidation", r.Resource)
		}
		consumes := append([]string{}, op.Consumes...)
		sort.Strings(consumes)
		if strings.Join(consumes, " ") != strings.Join(patchTypes, " ") {
			t.Errorf("%s: PATCH consumes %v", r.Resource, consumes)
		}
		found := false
		for _, d := range doc.Definitions {
			found = found || contains(gvkList(t, d.Extensions[extGVK]), want)
		}
		if !found {
			t.Errorf("%s: no definition carries %v", r.Resource, want)
		}
	}
}
