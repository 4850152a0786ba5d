package validation

import "testing"

const validWebhookConfig = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: policy}
webhooks:
- name: pods.policy.example.com
  clientConfig:
    service: {namespace: policy, name: webhook, path: /validate/pods, port: 8443}
  rules:
  - {operations: [CREATE, UPDATE], apiGroups: [""], apiVersions: [v1], resources: [pods, pods/status], scope: Namespaced}
  failurePolicy: Ignore
  matchPolicy: Exact
  sideEffects: None
  timeoutSeconds: 5
  admissionReviewVersions: [v1]
  namespaceSelector: {matchLabels: {policy: enforced}}
  objectSelector: {}
  matchConditions: [{name: not-system, expression: "!request.userInfo.username.startsWith('system:')"}]
- name: deployments.policy.example.com
  clientConfig: {url: "https://policy.example.com/validate"}
  sideEffects: NoneOnDryRun
  admissionReviewVersions: [v1beta1, v1]
`

func TestValidateValidatingWebhookConfiguration(t *testing.T) {
	base := object(t, validWebhookConfig)
	runValidation(t, ValidateValidatingWebhookConfiguration, []validationCase{
		{name: "valid", obj: base},
		{name: "name needs three segments", obj: with(t, base, edit{"webhooks[0].name", "policy.example"}),
			want: []string{"webhooks[0].name: Invalid value"}},
		{name: "names unique", obj: with(t, base, edit{"webhooks[1].name", "pods.policy.example.com"}),
			want: []string{"webhooks[1].name: Duplicate value"}},
		{name: "url or service", obj: with(t, base, edit{"webhooks[1].clientConfig.service", map[string]any{"namespace": "a", "name": "b"}}),
			want: []string{"webhooks[1].clientConfig: Required value"}},
		{name: "neither url nor service", obj: with(t, base, edit{"webhooks[1].clientConfig", map[string]any{}}),
			want: []string{"webhooks[1].clientConfig: Required value"}},
		{name: "https only", obj: with(t, base, edit{"webhooks[1].clientConfig.url", "http://policy.example.com/"}),
			want: []string{"webhooks[1].clientConfig.url: Invalid value"}},
		{name: "no query", obj: with(t, base, edit{"webhooks[1].clientConfig.url", "https://policy.example.com/?a=b"}),
			want: []string{"webhooks[1].clientConfig.url: Invalid value"}},
		{name: "service name", obj: with(t, base, edit{"webhooks[0].clientConfig.service.name", removed}),
			want: []string{"webhooks[0].clientConfig.service.name: Required value"}},
		{name: "service path", obj: with(t, base, edit{"webhooks[0].clientConfig.service.path", "validate"}),
			want: []string{"webhooks[0].clientConfig.service.path: Invalid value"}},
		{name: "service port", obj: with(t, base, edit{"webhooks[0].clientConfig.service.port", 70000}),
			want: []string{"webhooks[0].clientConfig.service.port: Invalid value"}},
		{name: "sideEffects required", obj: with(t, base, edit{"webhooks[1].sideEffects", removed}),
			want: []string{"webhooks[1].sideEffects: Required value"}},
		{name: "sideEffects enum", obj: with(t, base, edit{"webhooks[1].sideEffects", "Some"}),
			want: []string{"webhooks[1].sideEffects: Unsupported value"}},
		{name: "review versions required", obj: with(t, base, edit{"webhooks[1].admissionReviewVersions", removed}),
			want: []string{"webhooks[1].admissionReviewVersions: Required value"}},
		{name: "review versions known", obj: with(t, base, edit{"webhooks[1].admissionReviewVersions", []any{"v2"}}),
			want: []string{"webhooks[1].admissionReviewVersions: Invalid value"}},
		{name: "failurePolicy enum", obj: with(t, base, edit{"webhooks[0].failurePolicy", "Retry"}),
			want: []string{"webhooks[0].failurePolicy: Unsupported value"}},
		{name: "matchPolicy enum", obj: with(t, base, edit{"webhooks[0].matchPolicy", "Fuzzy"}),
			want: []string{"webhooks[0].matchPolicy: Unsupported value"}},
		{name: "timeout range", obj: with(t, base, edit{"webhooks[0].timeoutSeconds", 31}),
			want: []string{"webhooks[0].timeoutSeconds: Invalid value"}},
		{name: "rule operations", obj: with(t, base, edit{"webhooks[0].rules[0].operations", []any{"PATCH"}}),
			want: []string{"webhooks[0].rules[0].operations[0]: Unsupported value"}},
		{name: "rule scope", obj: with(t, base, edit{"webhooks[0].rules[0].scope", "Global"}),
			want: []string{"webhooks[0].rules[0].scope: Unsupported value"}},
		{name: "selector", obj: with(t, base, edit{"webhooks[0].namespaceSelector.matchLabels", map[string]any{"policy": "not ok"}}),
			want: []string{"webhooks[0].namespaceSelector.matchLabels: Invalid value"}},
		{name: "match condition name", obj: with(t, base, edit{"webhooks[0].matchConditions[0].name", removed}),
			want: []string{"webhooks[0].matchConditions[0].name: Required value"}},
	})
}

func TestValidateMutatingWebhookConfiguration(t *testing.T) {
	base := with(t, object(t, validWebhookConfig), edit{"kind", "MutatingWebhookConfiguration"},
		edit{"webhooks[0].reinvocationPolicy", "IfNeeded"})
	runValidation(t, ValidateMutatingWebhookConfiguration, []validationCase{
		{name: "valid", obj: base},
		{name: "reinvocation enum", obj: with(t, base, edit{"webhooks[0].reinvocationPolicy", "Always"}),
			want: []string{"webhooks[0].reinvocationPolicy: Unsupported value"}},
		{name: "shared rules apply", obj: with(t, base, edit{"webhooks[1].clientConfig.url", "https://"}),
			want: []string{"webhooks[1].clientConfig.url: Invalid value"}},
		{name: "update", obj: with(t, base, edit{"webhooks[0].timeoutSeconds", 7}), old: base},
	})
}

func TestDefaultWebhookConfigurations(t *testing.T) {
	bare := object(t, `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: hooks}
webhooks:
- name: a.example.com
  clientConfig: {service: {namespace: x, name: y}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]
- name: b.example.com
  clientConfig: {service: {namespace: x, name: y, port: 8443}}
  failurePolicy: Ignore
  matchPolicy: Exact
  timeoutSeconds: 3
  reinvocationPolicy: IfNeeded
  namespaceSelector: {matchLabels: {a: b}}
  rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods], scope: Cluster}]
`)
	common := map[string]any{
		"webhooks[0].failurePolicy":             "Fail",
		"webhooks[0].matchPolicy":               "Equivalent",
		"webhooks[0].namespaceSelector":         map[string]any{},
		"webhooks[0].objectSelector":            map[string]any{},
		"webhooks[0].timeoutSeconds":            int64(10),
		"webhooks[0].rules[0].scope":            "*",
		"webhooks[0].clientConfig.service.port": int64(443),
		"webhooks[1].failurePolicy":             "Ignore",
		"webhooks[1].matchPolicy":               "Exact",
		"webhooks[1].timeoutSeconds":            int64(3),
		"webhooks[1].namespaceSelector":         map[string]any{"matchLabels": map[string]any{"a": "b"}},
		"webhooks[1].rules[0].scope":            "Cluster",
		"webhooks[1].clientConfig.service.port": int64(8443),
		"webhooks[1].admissionReviewVersions":   nil,
		"webhooks[1].sideEffects":               nil,
	}
	mutating := map[string]any{"webhooks[0].reinvocationPolicy": "Never", "webhooks[1].reinvocationPolicy": "IfNeeded"}
	for k, v := range common {
		mutating[k] = v
	}
	runDefaults(t, DefaultMutatingWebhookConfiguration, []defaultCase{{name: "mutating", obj: bare, want: mutating}})
	validating := map[string]any{"webhooks[0].reinvocationPolicy": nil}
	for k, v := range common {
		validating[k] = v
	}
	runDefaults(t, DefaultValidatingWebhookConfiguration, []defaultCase{
		{name: "validating", obj: with(t, bare, edit{"webhooks[1].reinvocationPolicy", removed}), want: validating}})
}
