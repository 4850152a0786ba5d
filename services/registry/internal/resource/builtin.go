package resource

import (
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubesplit/kubesplit/services/registry/internal/kubetype"
	"github.com/kubesplit/kubesplit/services/registry/internal/printers"
	"github.com/kubesplit/kubesplit/services/registry/internal/validation"
)

// Builtins returns the built-in resources the registry serves, one entry a
// resource, grouped by API group in the builtin_<group>.go files. Adding a
// built-in kind is adding an entry there with kube's strategies for it.
func Builtins() []*Info {
	var all []*Info
	for _, group := range [][]*Info{
		core(), apps(), batch(), autoscaling(), policy(),
		networking(), discovery(), storage(), node(), scheduling(),
		certificates(), flowcontrol(), resourceGroup(), storagemigration(), events(),
		coordination(), rbac(), admissionregistration(), extensions(),
	} {
		all = append(all, group...)
	}
	return all
}

// kube returns info written through kube's own strategy for the object
// and, by name, for its subresources.
func kube(info *Info, object kubetype.Strategy, subresources map[string]rest.RESTUpdateStrategy) *Info {
	info.Strategy = kubetype.New(info.GroupVersionKind(), object, subresources)
	info.Convert = kubetype.Convert
	return info
}

// status is the subresource map of a kind whose only subresource strategy
// is its status's.
func status(s rest.RESTUpdateStrategy) map[string]rest.RESTUpdateStrategy {
	return map[string]rest.RESTUpdateStrategy{"status": s}
}

// extensions are the kinds of the API extension groups, whose types live
// outside k8s.io/kubernetes: the registry's own validation serves them.
func extensions() []*Info {
	return []*Info{
		{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition",
			Singular: "customresourcedefinition", ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"},
			StatusSubresource: true, Generation: true,
			Default: validation.DefaultCustomResourceDefinition, Validate: validation.ValidateCustomResourceDefinition,
			MarkDeleted: validation.MarkCustomResourceDefinitionDeleted,
			Columns:     printers.CustomResourceDefinition},
		{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices", Kind: "APIService", Singular: "apiservice",
			Categories: []string{"api-extensions"}, StatusSubresource: true, ConditionalUpdate: true,
			Default: validation.DefaultAPIService, Validate: validation.ValidateAPIService, Columns: printers.APIService},
	}
}
