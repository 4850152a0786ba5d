package customresource

import (
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

const testSchema = `
type: object
properties:
  spec:
    type: object
    required: [replicas]
    x-kubernetes-validations:
    - rule: self.replicas <= self.maxReplicas
      messageExpression: "'replicas ' + string(self.replicas) + ' over ' + string(self.maxReplicas)"
    - rule: self.replicas >= oldSelf.replicas
      message: replicas may not shrink
      fieldPath: .replicas
      reason: FieldValueForbidden
    - rule: oldSelf.hasValue() || self.replicas != 99
      optionalOldSelf: true
      message: 99 only after creation
    properties:
      replicas: {type: integer, minimum: 0, maximum: 100}
      maxReplicas: {type: integer, default: 10}
      color: {type: string, enum: [red, blue]}
      name: {type: string, pattern: '^[a-z]+$', maxLength: 8}
      port: {x-kubernetes-int-or-string: true}
      size: {type: string, default: M}
      nested:
        type: object
        default: {}
        properties:
          level: {type: integer, default: 1}
      free: {type: object, x-kubernetes-preserve-unknown-fields: true}
      labels: {type: object, additionalProperties: {type: string}}
      template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
      tags: {type: array, x-kubernetes-list-type: set, items: {type: string}}
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items: {type: object, required: [name], properties: {name: {type: string}, port: {type: integer}}}
      items:
        type: array
        items:
          type: object
          properties:
            num: {type: integer}
  status:
    type: object
    properties:
      ready: {type: boolean}
`

func newTestSchema(t *testing.T) *Schema {
	t.Helper()
	props := &apiextensionsv1.JSONSchemaProps{}
	if err := yaml.Unmarshal([]byte(testSchema), props); err != nil {
		t.Fatal(err)
	}
	return schemaOf(t, props)
}

// schemaOf is the Schema kube would serve for a CRD of kind W in
// example.com/v1 with props as its schema.
func schemaOf(t *testing.T, props *apiextensionsv1.JSONSchemaProps) *Schema {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
		Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "ws", Singular: "w", Kind: "W", ListKind: "WList"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
			Schema:       &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props},
			Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}}},
	}}
	s, err := NewSchema(crd, &crd.Spec.Versions[0], "W")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func obj(t *testing.T, js string) map[string]any {
	t.Helper()
	m := map[string]any{}
	if err := utiljson.Unmarshal([]byte(js), &m); err != nil {
		t.Fatal(err)
	}
	// Kube's strategy checks the type and ObjectMeta too.
	if _, ok := m["kind"]; !ok {
		m["apiVersion"], m["kind"] = "example.com/v1", "W"
		m["metadata"] = map[string]any{"name": "a", "namespace": "default", "resourceVersion": "1"}
	}
	return m
}

func TestPrune(t *testing.T) {
	s := newTestSchema(t)
	o := obj(t, `{"apiVersion":"x/v1","kind":"W","metadata":{"name":"a","odd":1},"extra":1,
		"spec":{"replicas":1,"bogus":true,"free":{"anything":{"goes":1}},"labels":{"a":"b"},
		"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"x":1}},
		"items":[{"num":1,"m":2}]}}`)
	removed := s.Prune(o)
	want := []string{"metadata.odd", "extra", "spec.bogus", "spec.items[0].m"}
	if !reflect.DeepEqual(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	want2 := obj(t, `{"apiVersion":"x/v1","kind":"W","metadata":{"name":"a"},
		"spec":{"replicas":1,"free":{"anything":{"goes":1}},"labels":{"a":"b"},
		"template":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"x":1}},
		"items":[{"num":1}]}}`)
	if !reflect.DeepEqual(o, want2) {
		t.Errorf("pruned to %v", o)
	}
}

func TestDefault(t *testing.T) {
	s := newTestSchema(t)
	o := obj(t, `{"spec":{"replicas":1,"size":null}}`)
	s.Default(o)
	spec := o["spec"].(map[string]any)
	if spec["maxReplicas"] != int64(10) || spec["size"] != "M" || !reflect.DeepEqual(spec["nested"], map[string]any{"level": int64(1)}) {
		t.Errorf("defaulted spec %v", spec)
	}
	if _, ok := o["status"]; ok {
		t.Errorf("status defaulted although absent: %v", o)
	}
}

func TestValidate(t *testing.T) {
	s := newTestSchema(t)
	cases := map[string]struct {
		obj, old string
		want     []string
	}{
		"valid":                        {obj: `{"spec":{"replicas":3,"maxReplicas":5,"color":"red","port":"http","name":"abc"}}`},
		"int-or-string":                {obj: `{"spec":{"replicas":3,"maxReplicas":5,"port":8080}}`},
		"required":                     {obj: `{"spec":{"maxReplicas":5}}`, want: []string{"spec.replicas: Required value", "<nil>: Invalid value: null: some validation rules were not checked"}},
		"type":                         {obj: `{"spec":{"replicas":"three","maxReplicas":5}}`, want: []string{`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`, "<nil>: Invalid value: null: some validation rules were not checked"}},
		"maximum":                      {obj: `{"spec":{"replicas":300,"maxReplicas":500}}`, want: []string{"spec.replicas: Invalid value: 300: spec.replicas in body should be less than or equal to 100"}},
		"enum":                         {obj: `{"spec":{"replicas":1,"maxReplicas":5,"color":"green"}}`, want: []string{`spec.color: Unsupported value: "green": supported values: "red", "blue"`, "<nil>: Invalid value"}},
		"pattern":                      {obj: `{"spec":{"replicas":1,"maxReplicas":5,"name":"ABC"}}`, want: []string{`spec.name: Invalid value: "ABC": spec.name in body should match '^[a-z]+$'`}},
		"maxLength":                    {obj: `{"spec":{"replicas":1,"maxReplicas":5,"name":"abcdefghij"}}`, want: []string{"spec.name: Too long", "<nil>: Invalid value"}},
		"int-or-string bool":           {obj: `{"spec":{"replicas":1,"maxReplicas":5,"port":true}}`, want: []string{"spec.port: Invalid value", "<nil>: Invalid value"}},
		"embedded":                     {obj: `{"spec":{"replicas":1,"maxReplicas":5,"template":{"metadata":{}}}}`, want: []string{"spec.template.apiVersion: Required value", "spec.template.kind: Required value", "<nil>: Invalid value"}},
		"set":                          {obj: `{"spec":{"replicas":1,"maxReplicas":5,"tags":["a","b","a"]}}`, want: []string{`spec.tags[2]: Duplicate value: "a"`}},
		"map list":                     {obj: `{"spec":{"replicas":1,"maxReplicas":5,"ports":[{"name":"a","port":1},{"name":"b","port":1},{"name":"a","port":2}]}}`, want: []string{`spec.ports[2]: Duplicate value: {"name":"a"}`}},
		"CEL message":                  {obj: `{"spec":{"replicas":6,"maxReplicas":5}}`, want: []string{`spec: Invalid value: replicas 6 over 5`}},
		"transition skipped on create": {obj: `{"spec":{"replicas":1,"maxReplicas":5}}`},
		"transition": {obj: `{"spec":{"replicas":1,"maxReplicas":5}}`, old: `{"spec":{"replicas":2,"maxReplicas":5}}`,
			want: []string{"spec.replicas: Forbidden: replicas may not shrink"}},
		"transition allowed": {obj: `{"spec":{"replicas":3,"maxReplicas":5}}`, old: `{"spec":{"replicas":2,"maxReplicas":5}}`},
		"optionalOldSelf on create": {obj: `{"spec":{"replicas":99,"maxReplicas":100}}`,
			want: []string{"spec: Invalid value: 99 only after creation"}},
		"optionalOldSelf on update": {obj: `{"spec":{"replicas":99,"maxReplicas":100}}`, old: `{"spec":{"replicas":2,"maxReplicas":100}}`},
		// An invalid value left as it was does not fail an update (kube's
		// ratcheting); a changed one does.
		"ratcheting": {obj: `{"spec":{"replicas":3,"maxReplicas":5,"name":"ABC"}}`, old: `{"spec":{"replicas":2,"maxReplicas":5,"name":"ABC"}}`},
		"ratcheting a change": {obj: `{"spec":{"replicas":3,"maxReplicas":5,"name":"ABCD"}}`, old: `{"spec":{"replicas":2,"maxReplicas":5,"name":"ABC"}}`,
			want: []string{`spec.name: Invalid value: "ABCD": spec.name in body should match '^[a-z]+$'`}},
	}
	for name, c := range cases {
		var old map[string]any
		if c.old != "" {
			old = obj(t, c.old)
		}
		errs := s.Validate(obj(t, c.obj), old)
		var got []string
		for _, e := range errs {
			got = append(got, e.Error())
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: errors %q, want %q", name, got, c.want)
			continue
		}
		for i := range c.want {
			if !strings.HasPrefix(got[i], c.want[i]) {
				t.Errorf("%s: error %q, want %q", name, got[i], c.want[i])
			}
		}
	}
}
