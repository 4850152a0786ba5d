package handler

import (
	"net/http"
	"strings"
	"testing"
)

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// crdWithItems is a CRD whose spec.items holds strings with the given
// bounds, under a rule comparing every item with every other.
func crdWithItems(bounds, itemBounds string) string {
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.example.com"},
"spec":{"group":"example.com","scope":"Namespaced",
 "names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
 "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
  "spec":{"type":"object",
   "x-kubernetes-validations":[{"rule":"self.items.all(x, self.items.all(y, x != y || true))"}],
   "properties":{"items":{"type":"array"` + bounds + `,"items":{"type":"string"` + itemBounds + `}}}}}}}}]}}`
}

// A rule that would compare a million items with a million others on
// every write is refused with the CRD, which is not stored; bounded, it
// is accepted.
func TestCRDWithCostlyRuleRefused(t *testing.T) {
	e := newEnv(t)
	before := e.etcdState()
	resp, data := e.do("POST", crdPath, crdWithItems("", ""))
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(data), `"reason":"Invalid"`) ||
		!strings.Contains(string(data), "x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x") {
		t.Fatalf("the costly CRD: %d %s", resp.StatusCode, data)
	}
	e.untouched(before, "a refused CRD")

	created := e.mustDo("POST", crdPath, crdWithItems(`,"maxItems":10`, `,"maxLength":64`), http.StatusCreated)
	if str(created, "metadata.name") != "widgets.example.com" {
		t.Fatalf("the bounded CRD: %v", created)
	}
}
