package printers

import (
	"testing"
	"time"
)

func TestConfigMapSecretServiceAccountCells(t *testing.T) {
	pinClock(t)
	created := `"creationTimestamp":"` + ago(45*time.Second) + `"`
	assertCells(t, ConfigMap, decode(t, `{"metadata":{"name":"cfg",`+created+`},
		"data":{"a":"1","b":"2"},"binaryData":{"c":"AA=="}}`),
		map[string]any{"Name": "cfg", "Data": int64(3), "Age": "45s"})
	assertCells(t, ConfigMap, decode(t, `{"metadata":{"name":"empty"}}`),
		map[string]any{"Data": int64(0)})
	assertCells(t, Secret, decode(t, `{"metadata":{"name":"tls",`+created+`},
		"type":"kubernetes.io/tls","data":{"tls.crt":"AA==","tls.key":"AA=="}}`),
		map[string]any{"Name": "tls", "Type": "kubernetes.io/tls", "Data": int64(2), "Age": "45s"})
	assertCells(t, ServiceAccount, decode(t, `{"metadata":{"name":"default"},"secrets":[{"name":"default-token"}]}`),
		map[string]any{"Name": "default", "Secrets": int64(1)})
	assertCells(t, ServiceAccount, decode(t, `{"metadata":{"name":"builder"}}`),
		map[string]any{"Secrets": int64(0)})
}
