package printers

import (
	"testing"
	"time"
)

func TestDeploymentCells(t *testing.T) {
	pinClock(t)
	d := decode(t, `{"metadata":{"name":"web","creationTimestamp":"`+ago(26*time.Hour)+`"},
		"spec":{"replicas":3,
		  "selector":{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]}]},
		  "template":{"spec":{"containers":[{"name":"app","image":"nginx:1.27"},{"name":"sidecar","image":"envoy:1.30"}]}}},
		"status":{"replicas":3,"readyReplicas":2,"updatedReplicas":3,"availableReplicas":2}}`)
	assertCells(t, Deployment, d, map[string]any{
		"Name": "web", "Ready": "2/3", "Up-to-date": int64(3), "Available": int64(2), "Age": "26h",
		"Containers": "app,sidecar", "Images": "nginx:1.27,envoy:1.30", "Selector": "app=web,tier in (a,b)",
	})
	assertCells(t, Deployment, decode(t, `{"metadata":{"name":"new"},"spec":{"replicas":1}}`), map[string]any{
		"Ready": "0/1", "Up-to-date": int64(0), "Available": int64(0), "Containers": "", "Images": "",
	})
	assertCells(t, Deployment, decode(t, `{"metadata":{"name":"bad"},
		"spec":{"selector":{"matchExpressions":[{"key":"k","operator":"Bogus"}]}}}`),
		map[string]any{"Selector": "<invalid>"})
}
