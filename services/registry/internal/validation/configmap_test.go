package validation

import (
	"strings"
	"testing"
)

const validConfigMap = `
apiVersion: v1
kind: ConfigMap
metadata: {name: conf, namespace: default}
data: {app.properties: "a=b", LOG_LEVEL: debug}
binaryData: {logo.png: aGVsbG8=}
`

func TestValidateConfigMap(t *testing.T) {
	base := object(t, validConfigMap)
	half := strings.Repeat("x", maxDataSize/2+1)
	runValidation(t, ValidateConfigMap, []validationCase{
		{name: "valid", obj: base},
		{name: "bad data key", obj: with(t, base, edit{"data", map[string]any{"a/b": "x"}}),
			want: []string{"data[a/b]: Invalid value"}},
		{name: "bad binary key", obj: with(t, base, edit{"binaryData", map[string]any{"..": "aGk="}}),
			want: []string{"binaryData[..]: Invalid value"}},
		{name: "key in data and binaryData", obj: with(t, base, edit{"binaryData", map[string]any{"LOG_LEVEL": "aGk="}}),
			want: []string{"data[LOG_LEVEL]: Invalid value"}},
		{name: "binaryData not base64", obj: with(t, base, edit{"binaryData", map[string]any{"logo": "not base64!"}}),
			want: []string{"binaryData[logo]: Invalid value"}},
		{name: "too large", obj: with(t, base, edit{"data", map[string]any{"a": half, "b": half}}),
			want: []string{"[]: Too long"}},
	})
}

func TestValidateConfigMapUpdate(t *testing.T) {
	old := object(t, validConfigMap)
	frozen := with(t, old, edit{"immutable", true})
	runValidation(t, ValidateConfigMap, []validationCase{
		{name: "mutable data changes", old: old, obj: with(t, old, edit{"data.LOG_LEVEL", "info"})},
		{name: "may become immutable", old: old, obj: frozen},
		{name: "immutable data is frozen", old: frozen, obj: with(t, frozen, edit{"data.LOG_LEVEL", "info"}),
			want: []string{"data: Forbidden"}},
		{name: "immutable binaryData is frozen", old: frozen, obj: with(t, frozen, edit{"binaryData", removed}),
			want: []string{"binaryData: Forbidden"}},
		{name: "immutable cannot be unset", old: frozen, obj: with(t, frozen, edit{"immutable", false}),
			want: []string{"immutable: Forbidden"}},
		{name: "immutable metadata may change", old: frozen, obj: with(t, frozen, edit{"metadata.labels", map[string]any{"a": "b"}})},
	})
}
