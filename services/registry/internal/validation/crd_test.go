package validation

import "testing"

const validCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList, shortNames: [wd], categories: [all]}
  conversion: {strategy: None}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              tags: {type: array, items: {type: string}}
              port: {x-kubernetes-int-or-string: true}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
              labels: {type: object, additionalProperties: {type: string}}
    additionalPrinterColumns: [{name: Size, type: integer, jsonPath: .spec.size}]
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.size, statusReplicasPath: .status.size}
  - name: v1beta1
    served: true
    storage: false
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`

func TestValidateCustomResourceDefinition(t *testing.T) {
	base := object(t, validCRD)
	schema := "spec.versions[0].schema.openAPIV3Schema"
	props := schema + ".properties.spec.properties"      // for edits
	propsPath := schema + ".properties[spec].properties" // as kube reports it
	runValidation(t, ValidateCustomResourceDefinition, []validationCase{
		{name: "valid", obj: base},
		{name: "name is plural.group", obj: with(t, base, edit{"metadata.name", "widget.example.com"}),
			want: []string{"metadata.name: Invalid value"}},
		{name: "group required", obj: with(t, base, edit{"spec.group", removed}, edit{"metadata.name", "widgets."}),
			want: []string{"spec.group: Required value"}},
		{name: "group has a dot", obj: with(t, base, edit{"spec.group", "example"}, edit{"metadata.name", "widgets.example"}),
			want: []string{"spec.group: Invalid value"}},
		{name: "scope enum", obj: with(t, base, edit{"spec.scope", "Global"}),
			want: []string{"spec.scope: Unsupported value"}},
		{name: "names required", obj: with(t, base, edit{"spec.names", map[string]any{"plural": "widgets"}}),
			want: []string{"spec.names.singular: Required value", "spec.names.kind: Required value", "spec.names.listKind: Required value"}},
		{name: "plural format", obj: with(t, base, edit{"spec.names.plural", "Widgets"}, edit{"metadata.name", "Widgets.example.com"}),
			want: []string{"spec.names.plural: Invalid value"}},
		{name: "kind format", obj: with(t, base, edit{"spec.names.kind", "Wid_get"}),
			want: []string{"spec.names.kind: Invalid value"}},
		{name: "kind and listKind differ", obj: with(t, base, edit{"spec.names.listKind", "Widget"}),
			want: []string{"spec.names.listKind: Invalid value"}},
		{name: "short name format", obj: with(t, base, edit{"spec.names.shortNames", []any{"w d"}}),
			want: []string{"spec.names.shortNames[0]: Invalid value"}},
		{name: "one storage version", obj: with(t, base, edit{"spec.versions[1].storage", true}),
			want: []string{"spec.versions: Invalid value"}},
		{name: "at least one version", obj: with(t, base, edit{"spec.versions", []any{}}),
			want: []string{"spec.versions: Invalid value"}},
		{name: "unique versions", obj: with(t, base, edit{"spec.versions[1].name", "v1"}),
			want: []string{"spec.versions: Invalid value"}},
		{name: "version name format", obj: with(t, base, edit{"spec.versions[1].name", "V2"}),
			want: []string{"spec.versions[1].name: Invalid value"}},
		{name: "schema required", obj: with(t, base, edit{"spec.versions[1].schema", removed}),
			want: []string{"spec.versions[1].schema.openAPIV3Schema: Required value"}},
		{name: "root type required", obj: with(t, base, edit{schema + ".type", removed}),
			want: []string{schema + ".type: Required value"}},
		{name: "root is an object", obj: with(t, base, edit{schema + ".type", "string"}),
			want: []string{schema + ".type: Invalid value"}},
		{name: "field types required", obj: with(t, base, edit{props + ".size", map[string]any{"minimum": 1}}),
			want: []string{propsPath + "[size].type: Required value"}},
		{name: "item types required", obj: with(t, base, edit{props + ".tags.items", map[string]any{}}),
			want: []string{propsPath + "[tags].items.type: Required value"}},
		{name: "type enum", obj: with(t, base, edit{props + ".size.type", "int"}),
			want: []string{propsPath + "[size].type: Unsupported value"}},
		{name: "items not a list", obj: with(t, base, edit{props + ".tags.items", []any{map[string]any{"type": "string"}}}),
			want: []string{propsPath + "[tags].items: Forbidden"}},
		{name: "printer column type", obj: with(t, base, edit{"spec.versions[0].additionalPrinterColumns[0].type", "float"}),
			want: []string{"spec.versions[0].additionalPrinterColumns[0].type: Unsupported value"}},
		{name: "scale path", obj: with(t, base, edit{"spec.versions[0].subresources.scale.specReplicasPath", ".status.size"}),
			want: []string{"spec.versions[0].subresources.scale.specReplicasPath: Invalid value"}},
		{name: "conversion strategy", obj: with(t, base, edit{"spec.conversion.strategy", "Magic"}),
			want: []string{"spec.conversion.strategy: Unsupported value"}},
		{name: "webhook conversion needs a webhook", obj: with(t, base, edit{"spec.conversion.strategy", "Webhook"}),
			want: []string{"spec.conversion.webhook: Required value"}},
		{name: "webhook conversion", obj: with(t, base, edit{"spec.conversion", map[string]any{"strategy": "Webhook",
			"webhook": map[string]any{"conversionReviewVersions": []any{"v1"},
				"clientConfig": map[string]any{"url": "https://convert.example.com/"}}}})},
		{name: "webhook conversion client", obj: with(t, base, edit{"spec.conversion", map[string]any{"strategy": "Webhook",
			"webhook": map[string]any{"clientConfig": map[string]any{"url": "http://convert.example.com/"}}}}),
			want: []string{"spec.conversion.webhook.clientConfig.url: Invalid value", "spec.conversion.webhook.conversionReviewVersions: Required value"}},
		{name: "no webhook without the strategy", obj: with(t, base, edit{"spec.conversion.webhook", map[string]any{}}),
			want: []string{"spec.conversion.webhook: Forbidden"}},
		{name: "preserveUnknownFields", obj: with(t, base, edit{"spec.preserveUnknownFields", true}),
			want: []string{"spec.preserveUnknownFields: Invalid value"}},
		{name: "CEL rule", obj: with(t, base, edit{props + ".labels.x-kubernetes-validations",
			[]any{map[string]any{"rule": "self.size() < 5", "messageExpression": "'too many: ' + string(self.size())"}}})},
		{name: "CEL rule that does not compile", obj: with(t, base, edit{props + ".labels.x-kubernetes-validations",
			[]any{map[string]any{"rule": "self.size() <"}}}),
			want: []string{propsPath + "[labels].x-kubernetes-validations[0].rule: Invalid value"}},
		{name: "CEL rule not a bool", obj: with(t, base, edit{props + ".labels.x-kubernetes-validations",
			[]any{map[string]any{"rule": "'yes'"}}}),
			want: []string{propsPath + "[labels].x-kubernetes-validations[0].rule: Invalid value"}},
		{name: "CEL rule with an unknown variable", obj: with(t, base, edit{props + ".labels.x-kubernetes-validations",
			[]any{map[string]any{"rule": "object.x == 1"}}}),
			want: []string{propsPath + "[labels].x-kubernetes-validations[0].rule: Invalid value"}},
		{name: "CEL rule reason", obj: with(t, base, edit{props + ".labels.x-kubernetes-validations",
			[]any{map[string]any{"rule": "true", "reason": "Bad"}}}),
			want: []string{propsPath + "[labels].x-kubernetes-validations[0].reason: Unsupported value"}},
		{name: "default of its type", obj: with(t, base, edit{props + ".size.default", int64(3)})},
		{name: "default of another type", obj: with(t, base, edit{props + ".size.default", "three"}),
			want: []string{propsPath + "[size].default: Invalid value"}},
		{name: "default out of bounds", obj: with(t, base, edit{props + ".size.default", int64(0)}, edit{props + ".size.minimum", int64(1)}),
			want: []string{propsPath + "[size].default: Invalid value"}},
		{name: "pattern must compile", obj: with(t, base, edit{props + ".tags.items.pattern", "a("}),
			want: []string{propsPath + "[tags].items.pattern: Invalid value"}},
	})
}

func TestValidateCustomResourceDefinitionUpdate(t *testing.T) {
	old := object(t, validCRD)
	established := with(t, old, edit{"status", map[string]any{"conditions": []any{
		map[string]any{"type": "Established", "status": "True"}}}})
	runValidation(t, ValidateCustomResourceDefinition, []validationCase{
		{name: "add a version", old: old, obj: with(t, old, edit{"spec.versions[1].name", "v2"})},
		{name: "group immutable", old: old, obj: with(t, old, edit{"spec.group", "example.org"}, edit{"metadata.name", "widgets.example.org"}),
			want: []string{"spec.group: Invalid value"}},
		{name: "plural immutable", old: old, obj: with(t, old, edit{"spec.names.plural", "gadgets"}, edit{"metadata.name", "gadgets.example.com"}),
			want: []string{"spec.names.plural: Invalid value"}},
		{name: "scope may change before established", old: old, obj: with(t, old, edit{"spec.scope", "Cluster"})},
		{name: "scope fixed once established", old: established, obj: with(t, established, edit{"spec.scope", "Cluster"}),
			want: []string{"spec.scope: Invalid value"}},
	})
}

func TestDefaultCustomResourceDefinition(t *testing.T) {
	bare := object(t, `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - {name: v1beta1, served: true, storage: false}
  - {name: v1, served: true, storage: true}
`)
	runDefaults(t, DefaultCustomResourceDefinition, []defaultCase{
		{name: "bare", obj: bare, want: map[string]any{
			"spec.names.singular":        "widget",
			"spec.names.listKind":        "WidgetList",
			"spec.conversion":            map[string]any{"strategy": "None"},
			"status.storedVersions":      []any{"v1"},
			"spec.preserveUnknownFields": nil,
		}},
		{name: "user values kept", obj: with(t, bare, edit{"spec.names.singular", "wdgt"}, edit{"spec.names.listKind", "Widgets"},
			edit{"spec.conversion", map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"clientConfig": map[string]any{"service": map[string]any{"namespace": "a", "name": "b"}}}}},
			edit{"status", map[string]any{"storedVersions": []any{"v1beta1"}}}),
			want: map[string]any{
				"spec.names.singular":                               "wdgt",
				"spec.names.listKind":                               "Widgets",
				"spec.conversion.strategy":                          "Webhook",
				"spec.conversion.webhook.clientConfig.service.port": int64(443),
				"status.storedVersions":                             []any{"v1beta1"},
			}},
	})
}
