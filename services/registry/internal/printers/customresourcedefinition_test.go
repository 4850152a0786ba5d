package printers

import "testing"

func TestCustomResourceDefinitionCells(t *testing.T) {
	crd := decode(t, `{"metadata":{"name":"widgets.example.com","creationTimestamp":"2024-01-02T03:04:05Z"},
		"spec":{"group":"example.com","scope":"Namespaced",
		  "names":{"kind":"Widget","plural":"widgets","shortNames":["wd","wdg"]},
		  "versions":[{"name":"v1beta1","served":true,"storage":false},{"name":"v1","served":true,"storage":true},
		    {"name":"v1alpha1","served":false,"storage":false}]},
		"status":{"conditions":[{"type":"NamesAccepted","status":"True"},{"type":"Established","status":"True"}]}}`)
	assertCells(t, CustomResourceDefinition, crd, map[string]any{
		"Name": "widgets.example.com", "Scope": "Namespaced", "Versions": "v1(storage),v1beta1",
		"Created At": "2024-01-02T03:04:05Z", "Group": "example.com", "Kind": "Widget",
		"ShortNames": "wd,wdg", "Established": true,
	})
	assertCells(t, CustomResourceDefinition, decode(t, `{"metadata":{"name":"x"}}`),
		map[string]any{"Versions": "", "ShortNames": "", "Established": false})
}
