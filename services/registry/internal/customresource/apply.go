package customresource

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/spec3"
)

// ApplyTypeConverter is how server-side apply sees a CRD's objects, built
// as kube's CRD handler builds it: every version's OpenAPI v3 from
// apiextensions' builder (which brings ObjectMeta's definition, so
// finalizers merge as a set and labels as a map), merged, so that the
// CRD's own list types merge as declared and an undeclared field is
// refused as kube refuses it.
func ApplyTypeConverter(crd *apiextensionsv1.CustomResourceDefinition) (managedfields.TypeConverter, error) {
	var specs []*spec3.OpenAPI
	for _, v := range crd.Spec.Versions {
		s, err := builder.BuildOpenAPIV3(crd, v.Name, builder.Options{})
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	merged, err := builder.MergeSpecsV3(specs...)
	if err != nil {
		return nil, err
	}
	return managedfields.NewTypeConverter(merged.Components.Schemas, crd.Spec.PreserveUnknownFields)
}
