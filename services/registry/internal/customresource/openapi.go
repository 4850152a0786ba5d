package customresource

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// publishedOpenAPI is what kube publishes of one served version: the
// definitions its CRD OpenAPI controllers build with apiextensions'
// builder (the schema with kube's type and object metadata, embedded
// resources filled in; in v2 an open object where unknown fields are
// kept), under the accepted names the version is served by.
func publishedOpenAPI(crd *apiextensionsv1.CustomResourceDefinition, names apiextensionsv1.CustomResourceDefinitionNames,
	version string) (*resource.CustomOpenAPI, error) {
	named := *crd
	named.Spec.Names = names
	if named.Spec.Names.ListKind == "" {
		named.Spec.Names.ListKind = names.Kind + "List"
	}
	gv := schema.GroupVersion{Group: crd.Spec.Group, Version: version}
	wanted := []string{
		resource.CustomDefinitionName(gv.WithKind(names.Kind)),
		resource.CustomDefinitionName(gv.WithKind(named.Spec.Names.ListKind)),
	}
	v3, err := builder.BuildOpenAPIV3(&named, version, builder.Options{IncludeSelectableFields: true})
	if err != nil {
		return nil, fmt.Errorf("building its OpenAPI v3: %w", err)
	}
	v2, err := builder.BuildOpenAPIV2(&named, version, builder.Options{V2: true, IncludeSelectableFields: true})
	if err != nil {
		return nil, fmt.Errorf("building its OpenAPI v2: %w", err)
	}
	out := &resource.CustomOpenAPI{V2: map[string]spec.Schema{}, V3: map[string]spec.Schema{}}
	for _, name := range wanted {
		s3, ok3 := v3.Components.Schemas[name]
		s2, ok2 := v2.Definitions[name]
		if !ok3 || s3 == nil || !ok2 {
			return nil, fmt.Errorf("the OpenAPI built lacks %s", name)
		}
		out.V3[name], out.V2[name] = *s3, s2
	}
	return out, nil
}
