package validation

import (
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// CRDOpenAPISchema converts a CRD schema to kube-openapi's form, in which
// kube validates custom objects. Their JSON encodings are the same OpenAPI
// v3 schema, so a round trip converts every keyword; what kube treats
// specially is then fixed up.
func CRDOpenAPISchema(props *apiextensionsv1.JSONSchemaProps) (*spec.Schema, error) {
	data, err := json.Marshal(props)
	if err != nil {
		return nil, err
	}
	out := &spec.Schema{}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, fmt.Errorf("converting the schema: %w", err)
	}
	fixIntOrString(out)
	return out, nil
}

// fixIntOrString gives x-kubernetes-int-or-string nodes the two types they
// accept, as kube's conversion does.
func fixIntOrString(s *spec.Schema) {
	if s == nil {
		return
	}
	if v, _ := s.Extensions.GetBool("x-kubernetes-int-or-string"); v {
		s.Type = spec.StringOrArray{"integer", "string"}
	}
	for k, p := range s.Properties {
		fixIntOrString(&p)
		s.Properties[k] = p
	}
	if s.AdditionalProperties != nil {
		fixIntOrString(s.AdditionalProperties.Schema)
	}
	if s.Items != nil {
		fixIntOrString(s.Items.Schema)
		for i := range s.Items.Schemas {
			fixIntOrString(&s.Items.Schemas[i])
		}
	}
	for _, list := range [][]spec.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			fixIntOrString(&list[i])
		}
	}
	fixIntOrString(s.Not)
}
