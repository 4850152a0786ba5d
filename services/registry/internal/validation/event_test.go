package validation

import (
	"strings"
	"testing"
)

const validEvent = `
apiVersion: v1
kind: Event
metadata: {name: web.1, namespace: default}
involvedObject: {kind: Pod, name: web, namespace: default, apiVersion: v1}
reason: Started
message: Started container web
type: Normal
count: 1
source: {component: kubelet}
`

func TestValidateEvent(t *testing.T) {
	base := object(t, validEvent)
	newStyle := with(t, base, edit{"eventTime", "2026-01-02T03:04:05.000000Z"}, edit{"reportingComponent", "kubelet"},
		edit{"reportingInstance", "node-1"}, edit{"action", "Start"})
	runValidation(t, ValidateEvent, []validationCase{
		{name: "valid", obj: base},
		{name: "involvedObject required", obj: with(t, base, edit{"involvedObject", removed}),
			want: []string{"involvedObject.kind: Required value", "involvedObject.name: Required value"}},
		{name: "namespace must match", obj: with(t, base, edit{"involvedObject.namespace", "other"}),
			want: []string{"involvedObject.namespace: Invalid value"}},
		{name: "cluster object's event in default", obj: with(t, base, edit{"involvedObject", map[string]any{"kind": "Node", "name": "n1"}})},
		{name: "cluster object's event elsewhere", obj: with(t, base, edit{"involvedObject", map[string]any{"kind": "Node", "name": "n1"}},
			edit{"metadata.namespace", "apps"}),
			want: []string{"involvedObject.namespace: Invalid value"}},
		{name: "new style", obj: newStyle},
		{name: "new style needs reporter and action", obj: with(t, newStyle, edit{"reportingComponent", removed},
			edit{"reportingInstance", removed}, edit{"action", removed}),
			want: []string{"reportingComponent: Required value", "reportingInstance: Required value", "action: Required value"}},
		{name: "new style reason length", obj: with(t, newStyle, edit{"reason", strings.Repeat("r", 129)}),
			want: []string{"reason: Invalid value"}},
		{name: "updates are free", obj: with(t, base, edit{"count", 2}, edit{"message", "again"}), old: base},
	})
}
