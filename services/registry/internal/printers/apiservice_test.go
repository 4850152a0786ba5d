package printers

import (
	"testing"
	"time"
)

func TestAPIServiceCells(t *testing.T) {
	assertCellsCases(t, APIService, []cellsCase{{
		name: "local",
		obj: `{"metadata":{"name":"v1.apps","creationTimestamp":"` + ago(7*time.Minute) + `"},
			"spec":{"group":"apps","version":"v1"},"status":{"conditions":[{"type":"Available","status":"True","reason":"Local"}]}}`,
		want: map[string]any{"Name": "v1.apps", "Service": "Local", "Available": "True", "Age": "7m"},
	}, {
		name: "aggregated and failing",
		obj: `{"metadata":{"name":"v1beta1.metrics.k8s.io"},
			"spec":{"service":{"namespace":"kube-system","name":"metrics-server"}},
			"status":{"conditions":[{"type":"Available","status":"False","reason":"MissingEndpoints"}]}}`,
		want: map[string]any{"Service": "kube-system/metrics-server", "Available": "False (MissingEndpoints)"},
	}, {
		name: "no reason",
		obj:  `{"metadata":{"name":"a"},"status":{"conditions":[{"type":"Available","status":"False"}]}}`,
		want: map[string]any{"Available": "False"},
	}, {
		name: "no condition yet",
		obj:  `{"metadata":{"name":"a"}}`,
		want: map[string]any{"Available": "Unknown", "Service": "Local"},
	}})
}
