package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/polltest"
)

// policyEffect bounds how long a new policy and binding take to be
// enforced: the admission stage's informers see them, and the registry
// refreshes the rules that tell it to ask.
const policyEffect = 10 * time.Second

// TestValidatingAdmissionPolicy drives ValidatingAdmissionPolicies through
// the split stack with kubectl, as a user writes them: a policy that
// denies, one that warns, one with params, and one whose CEL does not
// compile.
func TestValidatingAdmissionPolicy(t *testing.T) {
	s := startAdmissionStack(t)
	kc := s.Aggregator.Kubeconfig(t, "policy-admin", s.AdminToken)
	kubectl := func(t *testing.T, stdin string, args ...string) (string, error) {
		t.Helper()
		return s.Aggregator.Kubectl(t, kc, stdin, args...)
	}
	t.Run("Deny", func(t *testing.T) { testPolicyDeny(t, kubectl) })
	t.Run("Warn", func(t *testing.T) { testPolicyWarn(t, kubectl) })
	t.Run("Params", func(t *testing.T) { testPolicyParams(t, kubectl) })
	t.Run("BadCEL", func(t *testing.T) { testPolicyBadCEL(t, kubectl) })
}

type stdinKubectl func(t *testing.T, stdin string, args ...string) (string, error)

// policyNamespace creates a namespace labelled for one subtest's bindings,
// so that each policy applies to its own subtest only.
func policyNamespace(t *testing.T, kubectl stdinKubectl, name string) {
	t.Helper()
	mustKubectl(t, kubectl, fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata: {name: %s, labels: {policy-test: %s}}\n", name, name), "create", "-f", "-")
}

func mustKubectl(t *testing.T, kubectl stdinKubectl, stdin string, args ...string) string {
	t.Helper()
	out, err := kubectl(t, stdin, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// policyYAML is the ValidatingAdmissionPolicy name matching rule (one
// resourceRules entry), with the rest of its spec (which starts a line).
func policyYAML(name, rule, rest string) string {
	return fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: %s}
spec:
  matchConstraints:
    resourceRules:
    - %s%s`, name, rule, rest)
}

// bindingYAML binds policy to the namespaces labelled for ns.
func bindingYAML(name, policy, ns, actions, paramRef string) string {
	return fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: %s}
spec:
  policyName: %s
  validationActions: [%s]
  matchResources:
    namespaceSelector: {matchLabels: {policy-test: %s}}
%s`, name, policy, actions, ns, paramRef)
}

// waitRefused polls a server-side dry run (admitted, never stored) until
// it is refused, and returns how long that took and the refusal.
func waitRefused(t *testing.T, kubectl stdinKubectl, stdin string, args ...string) (time.Duration, string) {
	t.Helper()
	start, out := time.Now(), ""
	polltest.Until(t, policyEffect, "the policy to be enforced", func() bool {
		var err error
		out, err = kubectl(t, stdin, append(args, "--dry-run=server")...)
		return err != nil
	})
	return time.Since(start), out
}

func testPolicyDeny(t *testing.T, kubectl stdinKubectl) {
	const ns = "policy-deny"
	policyNamespace(t, kubectl, ns)
	mustKubectl(t, kubectl, policyYAML("no-passwords",
		`{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps]}`, `
  validations:
  - expression: "!has(object.data) || !('password' in object.data)"
    message: configmaps must not hold passwords
`), "create", "-f", "-")
	mustKubectl(t, kubectl, bindingYAML("no-passwords", "no-passwords", ns, "Deny", ""), "create", "-f", "-")

	took, _ := waitRefused(t, kubectl, "", "create", "configmap", "probe", "-n", ns, "--from-literal=password=x")
	t.Logf("the policy was enforced %v after its binding was created", took)

	// kubectl create -f prints an Invalid refusal as kube's is known:
	// "The <resource> "<name>" is invalid: : <message>".
	out, err := kubectl(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: creds}\ndata: {password: hunter2}\n",
		"create", "-n", ns, "-f", "-")
	want := `The configmaps "creds" is invalid: : ValidatingAdmissionPolicy 'no-passwords' with binding 'no-passwords' denied request: configmaps must not hold passwords`
	if err == nil || !strings.Contains(out, want) {
		t.Fatalf("kubectl create of a refused configmap: %v\n%s\nwant %q", err, out, want)
	}
	if out, err := kubectl(t, "", "get", "configmap", "creds", "-n", ns); err == nil || !strings.Contains(out, "NotFound") {
		t.Errorf("the refused configmap was stored: %v\n%s", err, out)
	}
	mustKubectl(t, kubectl, "", "create", "configmap", "plain", "-n", ns, "--from-literal=user=alice")
	// Outside the binding's namespaces the policy does not apply.
	mustKubectl(t, kubectl, "", "create", "configmap", "creds", "-n", "default", "--from-literal=password=hunter2", "--dry-run=server")
}

func testPolicyWarn(t *testing.T, kubectl stdinKubectl) {
	const ns = "policy-warn"
	policyNamespace(t, kubectl, ns)
	mustKubectl(t, kubectl, policyYAML("require-team",
		`{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}`, `
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    messageExpression: "'configmap ' + object.metadata.name + ' has no team label'"
`), "create", "-f", "-")
	mustKubectl(t, kubectl, bindingYAML("require-team", "require-team", ns, "Warn, Audit", ""), "create", "-f", "-")

	want := "Warning: Validation failed for ValidatingAdmissionPolicy 'require-team' with binding 'require-team': configmap probe has no team label"
	polltest.Until(t, policyEffect, "the policy's warning", func() bool {
		out, err := kubectl(t, "", "create", "configmap", "probe", "-n", ns, "--dry-run=server")
		if err != nil {
			t.Fatalf("a Warn policy refused: %v\n%s", err, out)
		}
		return strings.Contains(out, want)
	})
	out := mustKubectl(t, kubectl, "", "create", "configmap", "unlabelled", "-n", ns)
	if !strings.Contains(out, "configmap unlabelled has no team label") {
		t.Errorf("no warning for the stored configmap:\n%s", out)
	}
	mustKubectl(t, kubectl, "", "get", "configmap", "unlabelled", "-n", ns)
}

func testPolicyParams(t *testing.T, kubectl stdinKubectl) {
	const ns = "policy-params"
	policyNamespace(t, kubectl, ns)
	mustKubectl(t, kubectl, policyYAML("secret-size",
		`{apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [secrets]}`, `
  paramKind: {apiVersion: v1, kind: ConfigMap}
  variables:
  - {name: keys, expression: "has(object.data) ? size(object.data) : 0"}
  validations:
  - expression: "variables.keys <= int(params.data.maxKeys)"
    messageExpression: "'a secret may hold at most ' + params.data.maxKeys + ' keys, not ' + string(variables.keys)"
    reason: Forbidden
`), "create", "-f", "-")
	mustKubectl(t, kubectl, bindingYAML("secret-size", "secret-size", ns, "Deny",
		"  paramRef: {name: secret-limits, parameterNotFoundAction: Deny}\n"), "create", "-f", "-")

	// Without its params the binding denies, as parameterNotFoundAction says.
	_, out := waitRefused(t, kubectl, "", "create", "secret", "generic", "probe", "-n", ns, "--from-literal=a=1")
	if !strings.Contains(out, "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction") {
		t.Fatalf("without params: %s", out)
	}
	mustKubectl(t, kubectl, "", "create", "configmap", "secret-limits", "-n", ns, "--from-literal=maxKeys=2")
	polltest.Until(t, policyEffect, "the params to be used", func() bool {
		_, err := kubectl(t, "", "create", "secret", "generic", "probe", "-n", ns, "--from-literal=a=1", "--dry-run=server")
		return err == nil
	})
	mustKubectl(t, kubectl, "", "create", "secret", "generic", "small", "-n", ns, "--from-literal=a=1", "--from-literal=b=2")
	out, err := kubectl(t, "", "create", "secret", "generic", "big", "-n", ns, "--from-literal=a=1", "--from-literal=b=2", "--from-literal=c=3")
	want := `secrets "big" is forbidden: ValidatingAdmissionPolicy 'secret-size' with binding 'secret-size' denied request: a secret may hold at most 2 keys, not 3`
	if err == nil || !strings.Contains(out, want) {
		t.Fatalf("kubectl create of a secret over the param's limit: %v\n%s\nwant %q", err, out, want)
	}
	// A new limit applies once the params' informer sees it.
	mustKubectl(t, kubectl, "", "patch", "configmap", "secret-limits", "-n", ns, "-p", `{"data":{"maxKeys":"3"}}`)
	polltest.Until(t, policyEffect, "the new limit to be used", func() bool {
		_, err := kubectl(t, "", "create", "secret", "generic", "big", "-n", ns, "--from-literal=a=1", "--from-literal=b=2", "--from-literal=c=3", "--dry-run=server")
		return err == nil
	})
}

func testPolicyBadCEL(t *testing.T, kubectl stdinKubectl) {
	out, err := kubectl(t, policyYAML("bad-cel",
		`{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}`, `
  validations:
  - expression: "object.data.size() <"
`), "create", "-f", "-")
	want := `The ValidatingAdmissionPolicy "bad-cel" is invalid: spec.validations[0].expression: Invalid value: "object.data.size() <": compilation failed: ERROR: <input>:1:21: Syntax error`
	if err == nil || !strings.Contains(out, want) {
		t.Fatalf("kubectl create of a policy that does not compile: %v\n%s\nwant %q", err, out, want)
	}
	if out, err := kubectl(t, "", "get", "validatingadmissionpolicy", "bad-cel"); err == nil || !strings.Contains(out, "NotFound") {
		t.Errorf("the refused policy was stored: %v\n%s", err, out)
	}
}
