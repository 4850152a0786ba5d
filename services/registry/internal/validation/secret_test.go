package validation

import (
	"encoding/base64"
	"strings"
	"testing"
)

const validSecret = `
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: default}
type: Opaque
data: {password: aHVudGVyMg==}
`

func TestValidateSecret(t *testing.T) {
	base := object(t, validSecret)
	big := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("x", maxDataSize+1)))
	tls := with(t, base, edit{"type", "kubernetes.io/tls"})
	runValidation(t, ValidateSecret, []validationCase{
		{name: "valid", obj: base},
		{name: "bad key", obj: with(t, base, edit{"data", map[string]any{"a b": "eA=="}}),
			want: []string{"data[a b]: Invalid value"}},
		{name: "not base64", obj: with(t, base, edit{"data", map[string]any{"password": "hunter2!"}}),
			want: []string{"data[password]: Invalid value"}},
		{name: "too large", obj: with(t, base, edit{"data", map[string]any{"blob": big}}),
			want: []string{"data: Too long"}},
		{name: "tls needs cert and key", obj: tls,
			want: []string{"data[tls.crt]: Required value", "data[tls.key]: Required value"}},
		{name: "tls complete", obj: with(t, tls, edit{"data", map[string]any{"tls.crt": "eA==", "tls.key": "eA=="}})},
		{name: "basic auth needs a user or password", obj: with(t, base, edit{"type", "kubernetes.io/basic-auth"}, edit{"data", removed}),
			want: []string{"data[username]: Required value", "data[password]: Required value"}},
		{name: "basic auth with password", obj: with(t, base, edit{"type", "kubernetes.io/basic-auth"})},
		{name: "ssh auth needs a key", obj: with(t, base, edit{"type", "kubernetes.io/ssh-auth"}),
			want: []string{"data[ssh-privatekey]: Required value"}},
		{name: "docker config must be JSON", obj: with(t, base, edit{"type", "kubernetes.io/dockerconfigjson"},
			edit{"data", map[string]any{".dockerconfigjson": "bm90IGpzb24="}}),
			want: []string{"data[.dockerconfigjson]: Invalid value"}},
		{name: "docker config present", obj: with(t, base, edit{"type", "kubernetes.io/dockerconfigjson"}),
			want: []string{"data[.dockerconfigjson]: Required value"}},
		{name: "service account token names its account", obj: with(t, base, edit{"type", "kubernetes.io/service-account-token"}),
			want: []string{"metadata.annotations[kubernetes.io/service-account.name]: Required value"}},
		{name: "unknown types are free-form", obj: with(t, base, edit{"type", "example.com/thing"})},
		{name: "stringData of the wrong type", obj: with(t, base, edit{"stringData", map[string]any{"port": 5432}}),
			want: []string{"[]: Invalid value"}},
	})
}

func TestValidateSecretUpdate(t *testing.T) {
	old := object(t, validSecret)
	frozen := with(t, old, edit{"immutable", true})
	runValidation(t, ValidateSecret, []validationCase{
		{name: "data changes", old: old, obj: with(t, old, edit{"data.password", "eA=="})},
		{name: "type immutable", old: old, obj: with(t, old, edit{"type", "example.com/other"}),
			want: []string{"type: Invalid value"}},
		{name: "immutable data frozen", old: frozen, obj: with(t, frozen, edit{"data.password", "eA=="}),
			want: []string{"data: Forbidden"}},
		{name: "immutable cannot be unset", old: frozen, obj: with(t, frozen, edit{"immutable", removed}),
			want: []string{"immutable: Forbidden"}},
	})
}

func TestDefaultSecret(t *testing.T) {
	base := object(t, `
apiVersion: v1
kind: Secret
metadata: {name: creds}
data: {user: YWRtaW4=, password: b2xk}
stringData: {password: new, token: abc}
`)
	runDefaults(t, DefaultSecret, []defaultCase{
		{name: "type and stringData", obj: base, want: map[string]any{
			"type":          "Opaque",
			"stringData":    nil,
			"data.user":     "YWRtaW4=",
			"data.password": base64.StdEncoding.EncodeToString([]byte("new")),
			"data.token":    base64.StdEncoding.EncodeToString([]byte("abc")),
		}},
		{name: "type kept", obj: with(t, base, edit{"type", "kubernetes.io/tls"}), want: map[string]any{"type": "kubernetes.io/tls"}},
		{name: "non-string stringData left for validation", obj: with(t, base, edit{"stringData", map[string]any{"port": 5432}}),
			want: map[string]any{"stringData.port": int64(5432), "data.password": "b2xk"}},
	})
}
