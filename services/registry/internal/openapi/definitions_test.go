package openapi

import (
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kubesplit/kubesplit/services/registry/internal/openapi/generated"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// TestBuiltinsHaveGeneratedDefinitions fails when a built-in resource is
// added without its package in hack/update-openapi.sh: it would be served
// with an open schema, and kubectl could neither explain nor validate it.
func TestBuiltinsHaveGeneratedDefinitions(t *testing.T) {
	defs := generated.GetOpenAPIDefinitions(func(string) spec.Ref { return spec.Ref{} })
	for _, r := range resource.Builtins() {
		for _, kind := range []string{r.Kind, r.ListKind()} {
			name, typed := definitionName(r.GroupVersion().WithKind(kind))
			if !typed {
				t.Errorf("%s %s is not in resource.Scheme", r.APIVersion(), kind)
			}
			if _, ok := defs[string(name)]; !ok {
				t.Errorf("%s %s: no generated definition %s", r.APIVersion(), kind, name)
			}
		}
	}
}

// TestGeneratedDefinitionsClosed checks that every definition the generated
// ones depend on was generated too, so no document can hold a dangling $ref.
func TestGeneratedDefinitionsClosed(t *testing.T) {
	defs := generated.GetOpenAPIDefinitions(func(string) spec.Ref { return spec.Ref{} })
	for name, d := range defs {
		for _, dep := range d.Dependencies {
			if _, ok := defs[dep]; !ok {
				t.Errorf("%s depends on %s, which was not generated", name, dep)
			}
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
