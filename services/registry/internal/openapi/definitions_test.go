package openapi

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

func noRef(string) spec.Ref { return spec.Ref{} }

// TestBuiltinsHaveDefinitions fails when a built-in resource is served
// without kube's definition of its kind (a kind missing from resource.Scheme
// or from the generated definitions of the kube release the registry
// depends on): it would be served with an open schema, and kubectl could
// neither explain nor validate it.
func TestBuiltinsHaveDefinitions(t *testing.T) {
	defs := builtinDefinitions(noRef)
	for _, r := range resource.Builtins() {
		for _, kind := range publishedKinds(r) {
			name, typed := definitionName(r.GroupVersion().WithKind(kind))
			if !typed {
				t.Errorf("%s %s is not in resource.Scheme", r.APIVersion(), kind)
			}
			if _, ok := defs[string(name)]; !ok {
				t.Errorf("%s %s: no definition %s", r.APIVersion(), kind, name)
			}
		}
	}
}

// TestV2PublishesEveryBuiltin reads /openapi/v2 as clients do and fails
// when a served built-in kind (or its list) has no definition there, has
// one without its group-version-kind (kubectl looks schemas up by it), or
// has the open schema the registry gives kinds it knows nothing about
// instead of kube's.
func TestV2PublishesEveryBuiltin(t *testing.T) {
	srv, _ := serve(t, resource.Builtins())
	_, body := get(t, srv, PathV2, "application/json", http.StatusOK)
	var doc spec.Swagger
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	builtin := builtinDefinitions(noRef)
	for _, r := range resource.Builtins() {
		for _, kind := range publishedKinds(r) {
			gv := r.GroupVersion().WithKind(kind)
			name, _ := definitionName(gv)
			def, ok := doc.Definitions[string(name)]
			if !ok {
				t.Errorf("%s %s: no definition %s in %s", r.APIVersion(), kind, name, PathV2)
				continue
			}
			if !contains(gvkList(t, def.Extensions[extGVK]), gvk{gv.Group, gv.Version, gv.Kind}) {
				t.Errorf("%s: %s does not list %s %s", name, extGVK, r.APIVersion(), kind)
			}
			if _, open := def.Extensions["x-kubernetes-preserve-unknown-fields"]; open {
				t.Errorf("%s %s: %s is an open schema", r.APIVersion(), kind, name)
			}
			if want, ok := builtin[string(name)]; !ok || def.Description != want.Schema.Description {
				t.Errorf("%s %s: %s is not kube's definition (description %.80q)", r.APIVersion(), kind, name, def.Description)
			}
		}
	}
}

// TestBuiltinDefinitionsClosed checks that every definition a served
// built-in kind depends on, directly or not, is there too, so no document
// can hold a dangling $ref. (kube's generated definitions also hold
// component configuration types, never served, which are not closed.)
func TestBuiltinDefinitionsClosed(t *testing.T) {
	defs := builtinDefinitions(noRef)
	seen := map[string]bool{}
	var visit func(name, from string)
	visit = func(name, from string) {
		if seen[name] {
			return
		}
		seen[name] = true
		d, ok := defs[name]
		if !ok {
			t.Errorf("%s depends on %s, which is not defined", from, name)
			return
		}
		for _, dep := range d.Dependencies {
			visit(dep, name)
		}
	}
	for _, name := range []model{defStatus, defDeleteOptions, defWatchEvent, defPatch, defScale} {
		visit(string(name), "every group-version")
	}
	for _, r := range resource.Builtins() {
		for _, kind := range publishedKinds(r) {
			name, _ := definitionName(r.GroupVersion().WithKind(kind))
			visit(string(name), r.APIVersion())
		}
	}
}

func TestDefinitionName(t *testing.T) {
	pod, typed := definitionName((&resource.Info{Version: "v1", Kind: "Pod"}).GroupVersionKind())
	if pod != "io.k8s.api.core.v1.Pod" || !typed {
		t.Errorf("Pod: got %q, %v", pod, typed)
	}
	crd, typed := definitionName((&resource.Info{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}).GroupVersionKind())
	if crd != "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition" || !typed {
		t.Errorf("CRD: got %q, %v", crd, typed)
	}
	cr, typed := definitionName((&resource.Info{Group: "stable.example.com", Version: "v1", Kind: "CronTab"}).GroupVersionKind())
	if cr != "com.example.stable.v1.CronTab" || typed {
		t.Errorf("custom resource: got %q, %v", cr, typed)
	}
}

// publishedKinds are the kinds a resource's operations name: the object
// and its list, or the object alone for a resource that is never listed
// (bindings, which only takes creates).
func publishedKinds(r *resource.Info) []string {
	if r.ServedVerbs != nil && !slices.Contains(r.ServedVerbs, "list") {
		return []string{r.Kind}
	}
	return []string{r.Kind, r.ListKind()}
}
