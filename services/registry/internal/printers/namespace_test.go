package printers

import (
	"testing"
	"time"
)

func TestNamespaceCells(t *testing.T) {
	pinClock(t)
	assertCells(t, Namespace, decode(t, `{"metadata":{"name":"kube-system","creationTimestamp":"`+ago(400*24*time.Hour)+`"},
		"status":{"phase":"Active"}}`),
		map[string]any{"Name": "kube-system", "Status": "Active", "Age": "400d"})
	assertCells(t, Namespace, decode(t, `{"metadata":{"name":"gone"},"status":{"phase":"Terminating"}}`),
		map[string]any{"Status": "Terminating"})
}
