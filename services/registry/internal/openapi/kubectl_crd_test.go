package openapi

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/yaml"

	"github.com/kubesplit/kubesplit/services/registry/internal/customresource"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// fooCRD is the CRD of kube's conformance test "CustomResourcePublishOpenAPI
// works for CRD with validation schema", with its schema.
const fooCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: foos, singular: foo, kind: Foo, listKind: FooList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: Foo CRD for Testing
        type: object
        properties:
          spec:
            type: object
            description: Specification of Foo
            properties:
              bars:
                description: List of Bars and their specs.
                type: array
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {description: Name of Bar., type: string}
                    age: {description: Age of Bar., type: string}
                    bazs:
                      description: List of Bazs.
                      type: array
                      items: {type: string}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        description: Foo whose spec keeps unknown fields
        type: object
        x-kubernetes-preserve-unknown-fields: true
`

// crdInfos is the resources a CRD serves, as the registry builds them.
func crdInfos(t *testing.T, doc string) []*resource.Info {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict([]byte(doc), crd); err != nil {
		t.Fatal(err)
	}
	infos, err := customresource.Infos(crd)
	if err != nil {
		t.Fatal(err)
	}
	return infos
}

// kubectl explain of a custom resource says what it says on kube-apiserver:
// the patterns are those kube's conformance test matches, in the v3
// document and in v2, and a field the schema lacks is an error.
func TestKubectlExplainCustomResource(t *testing.T) {
	srv, _ := startFakeAPI(t, append(resource.Builtins(), crdInfos(t, fooCRD)...), true)
	k := newKubectl(t, srv)
	cases := []struct{ args, pattern string }{
		{"foos", `(?s)DESCRIPTION:.*Foo CRD for Testing.*FIELDS:.*apiVersion.*<string>.*APIVersion defines.*spec.*<Object>.*Specification of Foo`},
		{"foos.metadata", `(?s)DESCRIPTION:.*Standard object's metadata.*FIELDS:.*creationTimestamp.*<string>.*CreationTimestamp is a timestamp`},
		{"foos.spec", `(?s)DESCRIPTION:.*Specification of Foo.*FIELDS:.*bars.*<\[\]Object>.*List of Bars and their specs`},
		{"foos.spec.bars", `(?s)(FIELD|RESOURCE):.*bars.*<\[\]Object>.*DESCRIPTION:.*List of Bars and their specs.*FIELDS:.*bazs.*<\[\]string>.*List of Bazs.*name.*<string>.*Name of Bar`},
		{"foos.spec --output=plaintext-openapiv2", `(?s)DESCRIPTION:.*Specification of Foo.*FIELDS:.*bars.*<\[\]Object>`},
		{"foos --api-version=example.com/v2", `(?s)DESCRIPTION:.*Foo whose spec keeps unknown fields.*FIELDS:.*apiVersion.*<string>.*APIVersion defines`},
	}
	for _, tc := range cases {
		t.Run(tc.args, func(t *testing.T) {
			out, err := k.run("", append([]string{"explain"}, strings.Fields(tc.args)...)...)
			if err != nil {
				t.Fatalf("kubectl explain %s: %v\n%s", tc.args, err, out)
			}
			if !regexp.MustCompile(tc.pattern).MatchString(out) {
				t.Errorf("kubectl explain %s does not match %s:\n%s", tc.args, tc.pattern, out)
			}
		})
	}
	if out, err := k.run("", "explain", "foos.spec.bars2"); err == nil || !strings.Contains(out, `field "bars2" does not exist`) {
		t.Errorf("explain of a missing field: %v\n%s", err, out)
	}
}

// A custom kind that keeps unknown fields is an open object in v2, with no
// extension kubectl's v2 validation would misread, as kube publishes it;
// v3 keeps the schema as written.
func TestV2OpenCustomResource(t *testing.T) {
	srv, _ := serve(t, append(resource.Builtins(), crdInfos(t, fooCRD)...))
	_, body := get(t, srv, PathV2, "application/json", http.StatusOK)
	var doc spec.Swagger
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	open, ok := doc.Definitions["com.example.v2.Foo"]
	if !ok {
		t.Fatal("no com.example.v2.Foo definition")
	}
	if _, kept := open.Extensions["x-kubernetes-preserve-unknown-fields"]; kept || len(open.Properties) != 0 {
		t.Errorf("v2 definition of an open kind: %+v", open)
	}
	_, body = get(t, srv, "/openapi/v3/apis/example.com/v2", "application/json", http.StatusOK)
	if !strings.Contains(string(body), `"x-kubernetes-preserve-unknown-fields":true`) {
		t.Errorf("v3 lost x-kubernetes-preserve-unknown-fields: %.400s", body)
	}
}
