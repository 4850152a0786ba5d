package policy

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugintest"
)

func TestDeny(t *testing.T) {
	pol := deploymentPolicy("max-replicas", "object.spec.replicas <= 5")
	pol.Spec.Validations[0].Message = "too many replicas"
	e := newEnv(t, pol, binding("max-replicas-binding", "max-replicas", admv1.Deny))

	if res := e.admit(deployment(t, "default", "small", 3, nil)); !res.Allowed {
		t.Fatalf("3 replicas refused: %+v", res.Status)
	}
	res := e.admit(deployment(t, "default", "web", 10, nil))
	want := `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: too many replicas`
	if res.Allowed || res.Status.Message != want || res.Status.Code != http.StatusUnprocessableEntity ||
		res.Status.Reason != metav1.StatusReasonInvalid {
		t.Fatalf("got %+v, want 422 Invalid %q", res.Status, want)
	}
	if len(res.Status.Details.Causes) != 1 || !strings.HasSuffix(res.Status.Details.Causes[0].Message, "too many replicas") {
		t.Errorf("causes %+v", res.Status.Details.Causes)
	}
}

func TestDenyReasonCode(t *testing.T) {
	pol := deploymentPolicy("p", "object.spec.replicas <= 5")
	pol.Spec.Validations[0].Reason = ptr.To(metav1.StatusReasonForbidden)
	e := newEnv(t, pol, binding("b", "p", admv1.Deny))
	res := e.admit(deployment(t, "default", "web", 10, nil))
	if res.Allowed || res.Status.Code != http.StatusForbidden || res.Status.Reason != metav1.StatusReasonForbidden ||
		!strings.HasSuffix(res.Status.Message, "denied request: failed expression: object.spec.replicas <= 5") {
		t.Fatalf("got %+v", res.Status)
	}
}

func TestUnboundPolicyDoesNothing(t *testing.T) {
	e := newEnv(t, deploymentPolicy("p", "false"), binding("b", "other", admv1.Deny))
	if res := e.admit(deployment(t, "default", "web", 10, nil)); !res.Allowed {
		t.Fatalf("a policy without a binding refused: %+v", res.Status)
	}
}

func TestWarnAndAudit(t *testing.T) {
	pol := deploymentPolicy("p", "object.spec.replicas <= 5")
	pol.Spec.Validations[0].Message = "too many"
	e := newEnv(t, pol, binding("b", "p", admv1.Warn, admv1.Audit))
	res := e.admit(deployment(t, "default", "web", 10, nil))
	if !res.Allowed {
		t.Fatalf("Warn and Audit refused: %+v", res.Status)
	}
	wantWarning := "Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': too many"
	if len(res.Warnings) != 1 || res.Warnings[0] != wantWarning {
		t.Errorf("warnings %q, want %q", res.Warnings, wantWarning)
	}
	var failures []map[string]any
	if err := json.Unmarshal([]byte(res.AuditAnnotations[validationFailureKey]), &failures); err != nil || len(failures) != 1 {
		t.Fatalf("audit annotations %v: %v", res.AuditAnnotations, err)
	}
	if f := failures[0]; f["message"] != "too many" || f["policy"] != "p" || f["binding"] != "b" || f["expressionIndex"] != 0.0 {
		t.Errorf("failure %v", f)
	}
	if res := e.admit(deployment(t, "default", "small", 1, nil)); len(res.Warnings)+len(res.AuditAnnotations) != 0 {
		t.Errorf("a passing request got %q %v", res.Warnings, res.AuditAnnotations)
	}
}

func TestMessageExpression(t *testing.T) {
	pol := deploymentPolicy("p", "object.spec.replicas <= 5")
	pol.Spec.Validations[0].Message = "static"
	pol.Spec.Validations[0].MessageExpression = "'replicas ' + string(object.spec.replicas) + ' in ' + namespaceObject.metadata.name + ' by ' + request.userInfo.username"
	e := newEnv(t, pol, binding("b", "p", admv1.Deny))
	a := deployment(t, "default", "web", 10, nil)
	a.UserInfo.Username = "alice"
	res := e.admit(a)
	if res.Allowed || !strings.HasSuffix(res.Status.Message, "denied request: replicas 10 in default by alice") {
		t.Fatalf("got %+v", res.Status)
	}

	// A messageExpression that fails falls back to the message.
	pol.Spec.Validations[0].MessageExpression = "object.spec.nothing"
	e = newEnv(t, pol, binding("b", "p", admv1.Deny))
	if res := e.admit(a); !strings.HasSuffix(res.Status.Message, "denied request: static") {
		t.Fatalf("got %+v", res.Status)
	}
}

func TestVariablesAndAuditAnnotations(t *testing.T) {
	pol := deploymentPolicy("p", "variables.doubled <= 10")
	pol.Spec.Variables = []admv1.Variable{
		{Name: "replicas", Expression: "object.spec.replicas"},
		{Name: "doubled", Expression: "variables.replicas * 2"},
	}
	pol.Spec.AuditAnnotations = []admv1.AuditAnnotation{
		{Key: "big", ValueExpression: "variables.replicas > 3 ? 'deployment ' + object.metadata.name : ''"},
	}
	e := newEnv(t, pol, binding("b", "p", admv1.Deny))
	res := e.admit(deployment(t, "default", "web", 4, nil))
	if !res.Allowed || res.AuditAnnotations["p/big"] != "deployment web" {
		t.Fatalf("4 replicas: %+v %v", res.Status, res.AuditAnnotations)
	}
	if res := e.admit(deployment(t, "default", "web", 2, nil)); !res.Allowed || len(res.AuditAnnotations) != 0 {
		t.Fatalf("2 replicas: %+v %v", res.Status, res.AuditAnnotations)
	}
	if res := e.admit(deployment(t, "default", "web", 6, nil)); res.Allowed {
		t.Fatal("6 replicas (12 doubled) allowed")
	}
}

func TestFailurePolicy(t *testing.T) {
	for _, fp := range []admv1.FailurePolicyType{admv1.Fail, admv1.Ignore} {
		// An evaluation error (no such key), and a policy stored before the
		// registry compiled expressions.
		broken := deploymentPolicy("eval", "object.spec.nothing > 1")
		broken.Spec.FailurePolicy = ptr.To(fp)
		uncompiled := deploymentPolicy("compile", "object.spec.replicas <")
		uncompiled.Spec.FailurePolicy = ptr.To(fp)
		for _, pol := range []*admv1.ValidatingAdmissionPolicy{broken, uncompiled} {
			e := newEnv(t, pol, binding("b", pol.Name, admv1.Deny))
			res := e.admit(deployment(t, "default", "web", 1, nil))
			if fp == admv1.Ignore && !res.Allowed {
				t.Errorf("%s, Ignore: refused %+v", pol.Name, res.Status)
			}
			if fp == admv1.Fail && (res.Allowed || res.Status.Code != http.StatusUnprocessableEntity) {
				t.Errorf("%s, Fail: got %+v", pol.Name, res.Status)
			}
			if fp == admv1.Fail && pol == uncompiled && !strings.Contains(res.Status.Message, "ValidatingAdmissionPolicy 'compile' denied request: failed to configure policy") {
				t.Errorf("compile error message: %q", res.Status.Message)
			}
		}
	}
}

func TestParams(t *testing.T) {
	pol := deploymentPolicy("p", "object.spec.replicas <= int(params.data.max)")
	pol.Spec.ParamKind = &admv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	pol.Spec.Validations[0].MessageExpression = "'at most ' + params.data.max + ' replicas'"
	withRef := func(ref admv1.ParamRef) *admv1.ValidatingAdmissionPolicyBinding {
		b := binding("b", "p", admv1.Deny)
		b.Spec.ParamRef = &ref
		return b
	}
	limits := configMap("default", "limits", map[string]string{"team": "a"}, "3")
	prodLimits := configMap("prod", "limits", map[string]string{"team": "a"}, "8")
	deny, allow := ptr.To(admv1.DenyAction), ptr.To(admv1.AllowAction)
	cases := map[string]struct {
		ref      admv1.ParamRef
		ns       string
		replicas int32
		wantDeny string // suffix of the message; "" to allow
	}{
		"by name, within":            {admv1.ParamRef{Name: "limits", ParameterNotFoundAction: deny}, "default", 3, ""},
		"by name, over":              {admv1.ParamRef{Name: "limits", ParameterNotFoundAction: deny}, "default", 4, "denied request: at most 3 replicas"},
		"request namespace's params": {admv1.ParamRef{Name: "limits", ParameterNotFoundAction: deny}, "prod", 8, ""},
		"fixed namespace":            {admv1.ParamRef{Name: "limits", Namespace: "default", ParameterNotFoundAction: deny}, "prod", 8, "at most 3 replicas"},
		"selector":                   {admv1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}, ParameterNotFoundAction: deny}, "default", 4, "at most 3 replicas"},
		"not found, Allow":           {admv1.ParamRef{Name: "missing", ParameterNotFoundAction: allow}, "default", 100, ""},
		"not found, Deny":            {admv1.ParamRef{Name: "missing", ParameterNotFoundAction: deny}, "default", 1, "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"},
		"selector finds none, Deny":  {admv1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}}, ParameterNotFoundAction: deny}, "default", 1, "no params found for policy binding with `Deny` parameterNotFoundAction"},
	}
	for name, c := range cases {
		e := newEnv(t, pol, withRef(c.ref), limits, prodLimits)
		res := e.admit(deployment(t, c.ns, "web", c.replicas, nil))
		switch {
		case c.wantDeny == "" && !res.Allowed:
			t.Errorf("%s: refused %+v", name, res.Status)
		case c.wantDeny != "" && (res.Allowed || !strings.HasSuffix(res.Status.Message, c.wantDeny)):
			t.Errorf("%s: got %+v, want a denial ending %q", name, res.Status, c.wantDeny)
		}
	}
}

func TestRequestBeforeInformerSeesParam(t *testing.T) {
	// The informer has synced without the ConfigMap; the live read finds it.
	pol := deploymentPolicy("p", "object.spec.replicas <= int(params.data.max)")
	pol.Spec.ParamKind = &admv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
	b := binding("b", "p", admv1.Deny)
	b.Spec.ParamRef = &admv1.ParamRef{Name: "late", ParameterNotFoundAction: ptr.To(admv1.DenyAction)}
	e := newEnv(t, pol, b)
	if res := e.admit(deployment(t, "default", "web", 1, nil)); res.Allowed {
		t.Fatal("allowed without the param")
	}
	if _, err := e.plugin.params.dynamic.Resource(configMapsGVR).Namespace("default").Create(t.Context(),
		unstructuredConfigMap(t, configMap("default", "late", nil, "1")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if res := e.admit(deployment(t, "default", "web", 1, nil)); !res.Allowed {
		t.Fatalf("refused with the param: %+v", res.Status)
	}
}

func TestMatching(t *testing.T) {
	prodOnly := func(p *admv1.ValidatingAdmissionPolicy) {
		p.Spec.MatchConstraints.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	}
	labelled := func(p *admv1.ValidatingAdmissionPolicy) {
		p.Spec.MatchConstraints.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"checked": "yes"}}
	}
	excludeWeb := func(p *admv1.ValidatingAdmissionPolicy) {
		p.Spec.MatchConstraints.ExcludeResourceRules = []admv1.NamedRuleWithOperations{{ResourceNames: []string{"web"},
			RuleWithOperations: admv1.RuleWithOperations{Operations: []admv1.OperationType{admv1.OperationAll},
				Rule: admv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}}
	}
	onlyNamed := func(p *admv1.ValidatingAdmissionPolicy) {
		p.Spec.MatchConstraints.ResourceRules[0].ResourceNames = []string{"api"}
	}
	podsOnly := func(p *admv1.ValidatingAdmissionPolicy) {
		p.Spec.MatchConstraints.ResourceRules[0].Resources = []string{"pods"}
	}
	notKubeSystem := func(p *admv1.ValidatingAdmissionPolicy) {
		p.Spec.MatchConditions = []admv1.MatchCondition{{Name: "labelled", Expression: "has(object.metadata.labels) && 'checked' in object.metadata.labels"}}
	}
	bindingProd := func(b *admv1.ValidatingAdmissionPolicyBinding) {
		b.Spec.MatchResources = &admv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}
	}
	type req struct {
		ns, name string
		labels   map[string]string
	}
	cases := map[string]struct {
		policy  func(*admv1.ValidatingAdmissionPolicy)
		binding func(*admv1.ValidatingAdmissionPolicyBinding)
		denied  []req
		allowed []req
	}{
		"namespaceSelector": {policy: prodOnly, denied: []req{{"prod", "web", nil}}, allowed: []req{{"default", "web", nil}}},
		"objectSelector": {policy: labelled, denied: []req{{"default", "web", map[string]string{"checked": "yes"}}},
			allowed: []req{{"default", "web", nil}}},
		"excludeResourceRules": {policy: excludeWeb, denied: []req{{"default", "api", nil}}, allowed: []req{{"default", "web", nil}}},
		"resourceNames":        {policy: onlyNamed, denied: []req{{"default", "api", nil}}, allowed: []req{{"default", "web", nil}}},
		"other resources":      {policy: podsOnly, allowed: []req{{"default", "web", nil}}},
		"matchConditions": {policy: notKubeSystem, denied: []req{{"default", "web", map[string]string{"checked": "no"}}},
			allowed: []req{{"default", "web", nil}}},
		"binding matchResources": {binding: bindingProd, denied: []req{{"prod", "web", nil}}, allowed: []req{{"default", "web", nil}}},
	}
	for name, c := range cases {
		pol := deploymentPolicy("p", "false")
		if c.policy != nil {
			c.policy(pol)
		}
		b := binding("b", "p", admv1.Deny)
		if c.binding != nil {
			c.binding(b)
		}
		e := newEnv(t, pol, b)
		for _, r := range c.denied {
			if res := e.admit(deployment(t, r.ns, r.name, 1, r.labels)); res.Allowed {
				t.Errorf("%s: %v allowed", name, r)
			}
		}
		for _, r := range c.allowed {
			if res := e.admit(deployment(t, r.ns, r.name, 1, r.labels)); !res.Allowed {
				t.Errorf("%s: %v refused: %s", name, r, res.Status.Message)
			}
		}
	}
}

func TestCurrentRules(t *testing.T) {
	e := newEnv(t, deploymentPolicy("bound", "true"), binding("b", "bound", admv1.Deny), deploymentPolicy("unbound", "true"))
	rules := e.plugin.CurrentRules()
	if len(rules.Mutating) != 0 || len(rules.Validating) != 1 {
		t.Fatalf("rules %+v", rules)
	}
	r := rules.Validating[0]
	if r.Resources[0] != "deployments" || r.APIGroups[0] != "apps" || r.APIVersions[0] != "*" {
		t.Errorf("rule %+v: want apps/*/deployments (Equivalent broadened to any version)", r)
	}
	if !admission.Matches(rules.Validating, deployment(t, "default", "web", 1, nil)) {
		t.Error("the rules do not ask about a deployment")
	}

	empty := newEnv(t, deploymentPolicy("unbound", "true"))
	if rules := empty.plugin.CurrentRules(); len(rules.Validating) != 0 {
		t.Errorf("without bindings: %+v", rules)
	}
}

// A namespace selector looks at a Namespace itself when it is what is
// written, and selects every other cluster-scoped object.
func TestNamespaceSelectorClusterScoped(t *testing.T) {
	pol := deploymentPolicy("p", "false")
	pol.Spec.MatchConstraints.ResourceRules[0].APIGroups = []string{"", "rbac.authorization.k8s.io"}
	pol.Spec.MatchConstraints.ResourceRules[0].Resources = []string{"namespaces", "clusterroles"}
	pol.Spec.MatchConstraints.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	e := newEnv(t, pol, binding("b", "p", admv1.Deny))
	ns := func(labels map[string]string) *admission.Attributes {
		return plugintest.Attrs(t, admissionv1.Create, "", "v1", "Namespace", "namespaces", "new", "new", namespace("new", labels), nil)
	}
	if res := e.admit(ns(map[string]string{"env": "prod"})); res.Allowed {
		t.Error("a prod namespace allowed")
	}
	if res := e.admit(ns(nil)); !res.Allowed {
		t.Errorf("an unlabelled namespace refused: %s", res.Status.Message)
	}
	role := plugintest.Attrs(t, admissionv1.Create, "rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", "", "r",
		map[string]any{"metadata": map[string]any{"name": "r"}}, nil)
	if res := e.admit(role); res.Allowed {
		t.Error("a cluster role (cluster-scoped: every namespace selector selects it) allowed")
	}
}

// A variable that fails fails only the expressions that use it; an audit
// annotation that fails denies under Fail even through a Warn binding.
func TestExpressionErrors(t *testing.T) {
	pol := deploymentPolicy("p", "object.spec.replicas < 5")
	pol.Spec.Variables = []admv1.Variable{{Name: "broken", Expression: "object.spec.nothing"}}
	e := newEnv(t, pol, binding("b", "p", admv1.Deny))
	if res := e.admit(deployment(t, "default", "web", 1, nil)); !res.Allowed {
		t.Fatalf("an unused failing variable refused: %s", res.Status.Message)
	}
	pol.Spec.Validations = append(pol.Spec.Validations, admv1.Validation{Expression: "variables.broken == 1"})
	e = newEnv(t, pol, binding("b", "p", admv1.Deny))
	if res := e.admit(deployment(t, "default", "web", 1, nil)); res.Allowed || !strings.Contains(res.Status.Message, "no such key: nothing") {
		t.Fatalf("a validation using the failing variable: %+v", res.Status)
	}

	pol = deploymentPolicy("p", "true")
	pol.Spec.AuditAnnotations = []admv1.AuditAnnotation{{Key: "k", ValueExpression: "object.spec.nothing"}}
	e = newEnv(t, pol, binding("b", "p", admv1.Warn))
	if res := e.admit(deployment(t, "default", "web", 1, nil)); res.Allowed {
		t.Fatal("a failing audit annotation allowed under Fail")
	}
	pol.Spec.FailurePolicy = ptr.To(admv1.Ignore)
	e = newEnv(t, pol, binding("b", "p", admv1.Warn))
	if res := e.admit(deployment(t, "default", "web", 1, nil)); !res.Allowed || len(res.AuditAnnotations) != 0 {
		t.Fatalf("a failing audit annotation under Ignore: %+v %v", res.Status, res.AuditAnnotations)
	}
}
