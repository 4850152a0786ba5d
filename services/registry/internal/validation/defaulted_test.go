package validation

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestMinimalObjectsValidAfterDefaulting checks that what a user typically
// writes, once defaulted, passes validation: the defaults must supply
// every field validation requires.
func TestMinimalObjectsValidAfterDefaulting(t *testing.T) {
	for _, tc := range []struct {
		name     string
		def      func(*unstructured.Unstructured)
		validate func(obj, old *unstructured.Unstructured) field.ErrorList
		manifest string
	}{
		{"pod", DefaultPod, ValidatePod, `
{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default},
 spec: {containers: [{name: c, image: nginx, ports: [{containerPort: 80}], livenessProbe: {tcpSocket: {port: 80}}}],
        volumes: [{name: v}]}}`},
		{"service", DefaultService, ValidateService, `
{apiVersion: v1, kind: Service, metadata: {name: s, namespace: default},
 spec: {selector: {app: a}, ports: [{port: 80}]}}`},
		{"load balancer", DefaultService, ValidateService, `
{apiVersion: v1, kind: Service, metadata: {name: s, namespace: default},
 spec: {type: LoadBalancer, sessionAffinity: ClientIP, ports: [{name: a, port: 80}, {name: b, port: 81}]}}`},
		{"deployment", DefaultDeployment, ValidateDeployment, `
{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: default},
 spec: {selector: {matchLabels: {app: a}}, template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c, image: nginx}]}}}}`},
		{"secret", DefaultSecret, ValidateSecret, `
{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: default}, stringData: {password: x}}`},
		{"namespace", DefaultNamespace, ValidateNamespace, `{apiVersion: v1, kind: Namespace, metadata: {name: ns1}}`},
		{"role binding", DefaultRoleBinding, ValidateRoleBinding, `
{apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding, metadata: {name: b, namespace: default},
 roleRef: {kind: Role, name: r}, subjects: [{kind: User, name: alice}]}`},
		{"limit range", DefaultLimitRange, ValidateLimitRange, `
{apiVersion: v1, kind: LimitRange, metadata: {name: l, namespace: default},
 spec: {limits: [{type: Container, max: {cpu: "2"}, min: {memory: 1Mi}}]}}`},
		{"webhook", DefaultValidatingWebhookConfiguration, ValidateValidatingWebhookConfiguration, `
{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingWebhookConfiguration, metadata: {name: w},
 webhooks: [{name: w.example.com, sideEffects: None, admissionReviewVersions: [v1],
   clientConfig: {service: {namespace: ns1, name: s}},
   rules: [{operations: [CREATE], apiGroups: [""], apiVersions: [v1], resources: [pods]}]}]}`},
		{"policy", DefaultValidatingAdmissionPolicy, ValidateValidatingAdmissionPolicy, `
{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingAdmissionPolicy, metadata: {name: p},
 spec: {matchConstraints: {resourceRules: [{operations: [CREATE], apiGroups: [apps], apiVersions: [v1], resources: [deployments]}]},
   validations: [{expression: "true"}]}}`},
		{"policy binding", DefaultValidatingAdmissionPolicyBinding, ValidateValidatingAdmissionPolicyBinding, `
{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingAdmissionPolicyBinding, metadata: {name: b},
 spec: {policyName: p, validationActions: [Deny], matchResources: {}}}`},
		{"crd", DefaultCustomResourceDefinition, ValidateCustomResourceDefinition, `
{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: widgets.example.com},
 spec: {group: example.com, scope: Namespaced, names: {plural: widgets, kind: Widget},
   versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]}}`},
		{"api service", DefaultAPIService, ValidateAPIService, `
{apiVersion: apiregistration.k8s.io/v1, kind: APIService, metadata: {name: v1.example.com},
 spec: {group: example.com, version: v1, groupPriorityMinimum: 1000, versionPriority: 15,
   service: {namespace: ns1, name: s}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := object(t, tc.manifest)
			tc.def(obj)
			if errs := tc.validate(obj, nil); len(errs) > 0 {
				t.Errorf("defaulted %s is invalid: %v", tc.name, errs)
			}
			if errs := tc.validate(obj, obj.DeepCopy()); len(errs) > 0 {
				t.Errorf("no-op update of %s is invalid: %v", tc.name, errs)
			}
		})
	}
}
