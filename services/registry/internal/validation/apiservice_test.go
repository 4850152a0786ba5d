package validation

import "testing"

const validAPIService = `
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1beta1.metrics.k8s.io}
spec:
  group: metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  service: {namespace: kube-system, name: metrics-server, port: 443}
  caBundle: Y2E=
`

func TestValidateAPIService(t *testing.T) {
	base := object(t, validAPIService)
	local := object(t, `
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.}
spec: {version: v1, groupPriorityMinimum: 18000, versionPriority: 1}
`)
	runValidation(t, ValidateAPIService, []validationCase{
		{name: "valid", obj: base},
		{name: "local core group", obj: local},
		{name: "name is version.group", obj: with(t, base, edit{"metadata.name", "metrics"}),
			want: []string{"metadata.name: Invalid value"}},
		{name: "only v1 has no group", obj: with(t, local, edit{"spec.version", "v2"}, edit{"metadata.name", "v2."}),
			want: []string{"spec.group: Required value"}},
		{name: "group format", obj: with(t, base, edit{"spec.group", "Metrics"}, edit{"metadata.name", "v1beta1.Metrics"}),
			want: []string{"spec.group: Invalid value"}},
		{name: "version format", obj: with(t, base, edit{"spec.version", "1"}, edit{"metadata.name", "1.metrics.k8s.io"}),
			want: []string{"spec.version: Invalid value"}},
		{name: "group priority positive", obj: with(t, base, edit{"spec.groupPriorityMinimum", 0}),
			want: []string{"spec.groupPriorityMinimum: Invalid value"}},
		{name: "version priority bounded", obj: with(t, base, edit{"spec.versionPriority", 1001}),
			want: []string{"spec.versionPriority: Invalid value"}},
		{name: "service needs a name", obj: with(t, base, edit{"spec.service.name", removed}),
			want: []string{"spec.service.name: Required value"}},
		{name: "service port", obj: with(t, base, edit{"spec.service.port", 0}),
			want: []string{"spec.service.port: Invalid value"}},
		{name: "insecure with caBundle", obj: with(t, base, edit{"spec.insecureSkipTLSVerify", true}),
			want: []string{"spec.insecureSkipTLSVerify: Invalid value"}},
		{name: "local takes no caBundle", obj: with(t, local, edit{"spec.caBundle", "Y2E="}),
			want: []string{"spec.caBundle: Invalid value"}},
	})
}

func TestDefaultAPIService(t *testing.T) {
	base := object(t, validAPIService)
	runDefaults(t, DefaultAPIService, []defaultCase{
		{name: "port", obj: with(t, base, edit{"spec.service.port", removed}), want: map[string]any{"spec.service.port": int64(443)}},
		{name: "port kept", obj: with(t, base, edit{"spec.service.port", 8443}), want: map[string]any{"spec.service.port": int64(8443)}},
		{name: "local", obj: with(t, base, edit{"spec.service", removed}), want: map[string]any{"spec.service": nil}},
	})
}
