package customresource

import (
	"fmt"
	k8sschema "k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/discovery"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesplit/kubesplit/services/registry/internal/printers"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// Infos describes the resources a CRD serves: one per served version,
// under the names the CRD's status accepted (kube serves accepted names,
// not spec.names, so a name another CRD holds is never served twice).
func Infos(crd *apiextensionsv1.CustomResourceDefinition) ([]*resource.Info, error) {
	names := crd.Status.AcceptedNames
	if names.Plural == "" {
		names = crd.Spec.Names
	}
	// One converter serves every version, as kube's handler builds it;
	// like kube, a CRD whose OpenAPI cannot be built is still served, its
	// fields deduced from the objects.
	types, err := ApplyTypeConverter(crd)
	if err != nil {
		types = managedfields.NewDeducedTypeConverter()
	}
	var infos []*resource.Info
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if !v.Served {
			continue
		}
		info, err := versionInfo(crd, names, v)
		if err != nil {
			return nil, fmt.Errorf("version %s: %w", v.Name, err)
		}
		info.ApplyTypes = types
		infos = append(infos, info)
	}
	return infos, nil
}

// versionInfo is one served version's resource.
func versionInfo(crd *apiextensionsv1.CustomResourceDefinition, names apiextensionsv1.CustomResourceDefinitionNames,
	v *apiextensionsv1.CustomResourceDefinitionVersion) (*resource.Info, error) {
	schema, err := NewSchema(crd, v, names.Kind)
	if err != nil {
		return nil, err
	}
	cols, err := printers.CustomResource(v.AdditionalPrinterColumns)
	if err != nil {
		return nil, err
	}
	published, err := publishedOpenAPI(crd, names, v.Name)
	if err != nil {
		return nil, err
	}
	info := &resource.Info{
		Group: crd.Spec.Group, Version: v.Name, Resource: names.Plural, Kind: names.Kind, Singular: names.Singular,
		Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		ShortNames: names.ShortNames, Categories: names.Categories,
		// Custom resources count generations and, unlike most built-in
		// kinds, refuse a PUT that does not name the version it replaces.
		Generation: true, ConditionalUpdate: true,
		Prune: func(obj *unstructured.Unstructured) []string { return schema.Prune(obj.Object) },
		// Kube's decoder prunes and defaults every custom resource it
		// reads, from a request or from etcd.
		Default: func(obj *unstructured.Unstructured) {
			schema.Prune(obj.Object)
			schema.Default(obj.Object)
		},
		Validate: func(obj, old *unstructured.Unstructured) field.ErrorList {
			if old == nil {
				return schema.Validate(obj.Object, nil)
			}
			return schema.Validate(obj.Object, old.Object)
		},
		ValidatesMeta: true,
		Warnings: func(obj, old *unstructured.Unstructured, status bool) []string {
			if old == nil {
				return schema.Warnings(obj.Object, nil, false)
			}
			return schema.Warnings(obj.Object, old.Object, status)
		},
		ValidateStatus: func(obj, old *unstructured.Unstructured) field.ErrorList {
			return schema.ValidateStatus(obj.Object, old.Object)
		},
		Columns: cols,
		OpenAPI: published,
		Custom:  true,
		// Discovery's storageVersionHash is of the version objects are
		// stored at, whichever is served, as kube's CRD handler lists it.
		StorageVersionHash: storageVersionHash(crd, names.Kind),
	}
	for _, f := range v.SelectableFields {
		info.SelectableFields = append(info.SelectableFields, strings.TrimPrefix(f.JSONPath, "."))
	}
	if sub := v.Subresources; sub != nil {
		info.StatusSubresource = sub.Status != nil
		if sc := sub.Scale; sc != nil {
			info.Scale = &resource.Scale{SpecReplicasPath: sc.SpecReplicasPath, StatusReplicasPath: sc.StatusReplicasPath}
			if sc.LabelSelectorPath != nil {
				info.Scale.LabelSelectorPath = *sc.LabelSelectorPath
			}
		}
	}
	return info, nil
}

// storageVersionHash is kube's hash of the group, version and kind the
// CRD's objects are stored as.
func storageVersionHash(crd *apiextensionsv1.CustomResourceDefinition, kind string) string {
	gv, _ := k8sschema.ParseGroupVersion(storageVersion(crd))
	return discovery.StorageVersionHash(gv.Group, gv.Version, kind)
}
