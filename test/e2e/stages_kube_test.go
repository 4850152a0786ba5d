package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// webhookCaller is the user of the client certificate kube-apiserver
// presents to kubesplit's stages.
const webhookCaller = "kube-apiserver-webhooks"

// TestKubeAPIServerUsesKubesplitStages wires a real kube-apiserver to
// kubesplit's authn, authz and admission as its token, authorization and
// admission webhooks, as the README's "Use kubesplit's stages from
// kube-apiserver" does, and checks that kubesplit decides there: who a
// token is, what a RoleBinding grants, what admission lets through, and
// that kubesplit's authz being down is a denial at kube, never an allow.
func TestKubeAPIServerUsesKubesplitStages(t *testing.T) {
	callers := framework.NewCertAuthority(t, "kube-webhook-callers")
	callerCA := callers.File(t)
	caFlag := []string{"--client-ca-file", callerCA}
	aliceToken := "alice-token-known-only-to-kubesplit"
	s := framework.StartStack(t, framework.StackOptions{
		Args: map[string][]string{framework.StageAuthn: caFlag, framework.StageAuthz: caFlag, framework.StageAdmission: caFlag},
		// alice is in no group kube's RBAC names: only kubesplit's
		// authz can let her do anything beyond the basics.
		Users: []string{aliceToken + `,alice,uid-alice,"team-a"`},
	})
	ks := s.Client(t, s.AdminToken)
	grantWebhookCaller(t, ks)
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "caller.crt"), filepath.Join(dir, "caller.key")
	certPEM, keyPEM := callers.Issue(t, webhookCaller)
	mustWrite(t, certFile, certPEM)
	mustWrite(t, keyFile, keyPEM)
	k := framework.StartKubeAPIServer(t, kubeWebhookFlags(t, s, dir, certFile, keyFile)...)
	kube := k.Client(t)
	registerAdmissionWebhooks(t, s, kube)

	for _, ns := range []string{"team", "ghost"} {
		obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
		if ns == "team" { // "ghost" exists at kube only
			if _, err := ks.CoreV1().Namespaces().Create(ctx(t), obj, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := kube.CoreV1().Namespaces().Create(ctx(t), obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	alice := kubeAs(t, k, aliceToken)

	t.Run("a token only kubesplit knows authenticates at kube", func(t *testing.T) {
		kc := filepath.Join(t.TempDir(), "alice.kubeconfig")
		mustWrite(t, kc, fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters: [{name: kube, cluster: {server: %q, certificate-authority: %q}}]
users: [{name: alice, user: {token: %q}}]
contexts: [{name: kube, context: {cluster: kube, user: alice}}]
current-context: kube
`, k.URL(), k.CAFile, aliceToken))
		out, err := framework.RunKubectl(ctx(t), kc, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username} {.status.userInfo.groups}")
		if err != nil || !strings.HasPrefix(out, "alice ") || !strings.Contains(out, "team-a") {
			t.Fatalf("kubectl auth whoami at kube = %q, %v; want kubesplit's alice in team-a", out, err)
		}
		if _, err := kubeAs(t, k, "a-token-nobody-knows").CoreV1().Namespaces().List(ctx(t), metav1.ListOptions{}); !apierrors.IsUnauthorized(err) {
			t.Fatalf("unknown token at kube: %v, want 401", err)
		}
	})

	t.Run("a RoleBinding in kubesplit grants at kube and its deletion revokes", func(t *testing.T) {
		expectAccess(t, alice, false)
		bindReader(t, ks)
		expectAccess(t, alice, true)
		if err := ks.RbacV1().RoleBindings("team").Delete(ctx(t), "alice-reads", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		expectAccess(t, alice, false)
	})

	t.Run("kubesplit's admission decides writes to kube", func(t *testing.T) {
		// NamespaceLifecycle: kubesplit has no namespace ghost.
		_, err := kube.CoreV1().ConfigMaps("ghost").Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
		if err == nil || !strings.Contains(err.Error(), `namespaces "ghost" not found`) {
			t.Fatalf("write to kube in a namespace kubesplit does not have: %v, want kubesplit's NamespaceLifecycle denial", err)
		}
		checkLimitRanger(t, ks, kube)
		checkPolicy(t, ks, kube)
	})

	t.Run("kubesplit's authz failing or down never allows at kube", func(t *testing.T) {
		bindReader(t, ks)
		expectAccess(t, alice, true)
		// Down: kube's webhook authorizer gets no answer, and kube
		// v1.37.2 answers any authorizer error with 500, whatever the
		// failurePolicy (its union passes the error on with the Deny, and
		// its filter writes 500 for an error): a refusal, never an allow.
		s.Stop(t, framework.StageAuthz)
		for range 3 {
			_, err := alice.CoreV1().ConfigMaps("team").List(ctx(t), metav1.ListOptions{})
			if !apierrors.IsInternalError(err) {
				t.Fatalf("alice at kube with kubesplit's authz down: %v, want kube's 500 for an unreachable authorizer", err)
			}
		}
		// Up but unable to decide (its own webhook engine unreachable):
		// kubesplit answers the review with an evaluationError, which kube
		// reads as a denial: 403.
		s.StartWith(t, framework.StageAuthz, "--authorization-mode", "RBAC,Webhook",
			"--authorization-webhook-url", fmt.Sprintf("https://127.0.0.1:%d/", closedPort(t)))
		var last error
		ok := polltest.Holds(t, 30*time.Second, func(c context.Context) (bool, error) {
			_, last = alice.CoreV1().Secrets("team").List(c, metav1.ListOptions{})
			if last != nil && !apierrors.IsForbidden(last) && !apierrors.IsInternalError(last) {
				return false, last // an allow, or anything but a refusal
			}
			return apierrors.IsForbidden(last), nil
		})
		if !ok {
			t.Fatalf("alice at kube, kubesplit's authz unable to decide: %v, want 403", last)
		}
		expectAccess(t, alice, true) // what RBAC allows still holds
	})
}

// grantWebhookCaller lets kube-apiserver's certificate user call the three
// webhooks, as kube's system:auth-delegator role does for the first two.
func grantWebhookCaller(t *testing.T, ks kubernetes.Interface) {
	t.Helper()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "kubesplit:webhook-caller"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"tokenreviews"}, Verbs: []string{"create"}},
		{APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}, Verbs: []string{"create"}},
		{NonResourceURLs: []string{"/admission/v1/*"}, Verbs: []string{"post"}},
	}}
	if _, err := ks.RbacV1().ClusterRoles().Create(ctx(t), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "kubesplit:webhook-caller"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: webhookCaller}}}
	if _, err := ks.RbacV1().ClusterRoleBindings().Create(ctx(t), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// kubeWebhookFlags writes kube-apiserver's configuration for kubesplit's
// stages and returns the flags naming it: the token webhook, an
// authorization chain whose last word is kubesplit's authz (failing
// closed: failurePolicy Deny), and the admission webhooks' credentials.
func kubeWebhookFlags(t *testing.T, s *framework.Stack, dir, certFile, keyFile string) []string {
	t.Helper()
	kubeconfig := func(name, server string) string {
		path := filepath.Join(dir, name+".kubeconfig")
		mustWrite(t, path, fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters: [{name: kubesplit, cluster: {server: %q, certificate-authority: %q}}]
users: [{name: %q, user: {client-certificate: %q, client-key: %q}}]
contexts: [{name: kubesplit, context: {cluster: kubesplit, user: %q}}]
current-context: kubesplit
`, server, s.BackendCAFile(), webhookCaller, certFile, keyFile, webhookCaller))
		return path
	}
	authnKC := kubeconfig("authn", s.BackendURL(framework.StageAuthn)+"/apis/authentication.k8s.io/v1/tokenreviews")
	authzKC := kubeconfig("authz", s.BackendURL(framework.StageAuthz)+"/apis/authorization.k8s.io/v1/subjectaccessreviews")
	authzConfig := filepath.Join(dir, "authorization-config.yaml")
	mustWrite(t, authzConfig, fmt.Appendf(nil, `apiVersion: apiserver.config.k8s.io/v1
kind: AuthorizationConfiguration
authorizers:
- {type: Node, name: node}
- {type: RBAC, name: rbac}
- type: Webhook
  name: kubesplit
  webhook:
    timeout: 5s
    # kubesplit's authz follows its RBAC at once: no stale allow.
    cacheAuthorizedRequests: false
    cacheUnauthorizedRequests: false
    subjectAccessReviewVersion: v1
    matchConditionSubjectAccessReviewVersion: v1
    failurePolicy: Deny
    connectionInfo: {type: KubeConfigFile, kubeConfigFile: %q}
`, authzKC))
	// The admission webhooks' credentials are looked up by host:port.
	admissionKC := filepath.Join(dir, "admission.kubeconfig")
	mustWrite(t, admissionKC, fmt.Appendf(nil, `apiVersion: v1
kind: Config
users: [{name: %q, user: {client-certificate: %q, client-key: %q}}]
`, s.Addr[framework.StageAdmission], certFile, keyFile))
	admissionConfig := filepath.Join(dir, "admission-config.yaml")
	mustWrite(t, admissionConfig, fmt.Appendf(nil, `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ValidatingAdmissionWebhook
  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: WebhookAdmissionConfiguration, kubeConfigFile: %q}
- name: MutatingAdmissionWebhook
  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: WebhookAdmissionConfiguration, kubeConfigFile: %q}
`, admissionKC, admissionKC))
	return []string{
		"--authentication-token-webhook-config-file=" + authnKC, "--authentication-token-webhook-version=v1",
		"--authorization-config=" + authzConfig,
		"--admission-control-config-file=" + admissionConfig,
	}
}

// registerAdmissionWebhooks points kube's webhook configurations at
// kubesplit's admission, for every write.
func registerAdmissionWebhooks(t *testing.T, s *framework.Stack, kube kubernetes.Interface) {
	t.Helper()
	ca, err := os.ReadFile(s.BackendCAFile())
	if err != nil {
		t.Fatal(err)
	}
	rules := []admissionregistrationv1.RuleWithOperations{{
		Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"},
			Scope: ptr.To(admissionregistrationv1.AllScopes)},
	}}
	client := func(path string) admissionregistrationv1.WebhookClientConfig {
		return admissionregistrationv1.WebhookClientConfig{URL: ptr.To(s.BackendURL(framework.StageAdmission) + path), CABundle: ca}
	}
	none := ptr.To(admissionregistrationv1.SideEffectClassNone)
	fail := ptr.To(admissionregistrationv1.Fail)
	mutating := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "kubesplit"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "mutating.admission.kubesplit.io", ClientConfig: client("/admission/v1/mutating"),
			Rules: rules, SideEffects: none, FailurePolicy: fail, AdmissionReviewVersions: []string{"v1"}}}}
	validating := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "kubesplit"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "validating.admission.kubesplit.io", ClientConfig: client("/admission/v1/validating"),
			Rules: rules, SideEffects: none, FailurePolicy: fail, AdmissionReviewVersions: []string{"v1"}}}}
	if _, err := kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx(t), mutating, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx(t), validating, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// bindReader lets alice read ConfigMaps in team, in kubesplit.
func bindReader(t *testing.T, ks kubernetes.Interface) {
	t.Helper()
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "cm-reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}}}}
	if _, err := ks.RbacV1().Roles("team").Create(ctx(t), role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "alice-reads"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "alice"}}}
	if _, err := ks.RbacV1().RoleBindings("team").Create(ctx(t), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// expectAccess waits until alice's list of ConfigMaps in team at kube is
// allowed (or forbidden, when allowed is false); nothing else is accepted.
func expectAccess(t *testing.T, alice kubernetes.Interface, allowed bool) {
	t.Helper()
	var last error
	ok := polltest.Holds(t, 10*time.Second, func(c context.Context) (bool, error) {
		_, last = alice.CoreV1().ConfigMaps("team").List(c, metav1.ListOptions{})
		if last != nil && !apierrors.IsForbidden(last) {
			return false, last
		}
		return (last == nil) == allowed, nil
	})
	if !ok {
		t.Fatalf("alice listing ConfigMaps in team at kube: %v, want allowed=%v", last, allowed)
	}
}

// checkLimitRanger: a LimitRange in kubesplit defaults the limits of a Pod
// created at kube.
func checkLimitRanger(t *testing.T, ks, kube kubernetes.Interface) {
	t.Helper()
	lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "defaults"}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type: corev1.LimitTypeContainer, Default: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("300m")},
	}}}}
	if _, err := ks.CoreV1().LimitRanges("team").Create(ctx(t), lr, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// kube has no controller making the default ServiceAccount its
	// ServiceAccount admission wants.
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if _, err := kube.CoreV1().ServiceAccounts("team").Create(ctx(t), sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	var got string
	ok := polltest.Holds(t, 10*time.Second, func(c context.Context) (bool, error) {
		name := fmt.Sprintf("p-%d", time.Now().UnixNano())
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{
			AutomountServiceAccountToken: ptr.To(false),
			Containers:                   []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
		created, err := kube.CoreV1().Pods("team").Create(c, pod, metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		q := created.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU]
		got = q.String()
		return got == "300m", nil
	})
	if !ok {
		t.Fatalf("a Pod created at kube has cpu limit %q, want kubesplit's LimitRange default 300m", got)
	}
}

// checkPolicy: a ValidatingAdmissionPolicy in kubesplit refuses a write at
// kube.
func checkPolicy(t *testing.T, ks, kube kubernetes.Interface) {
	t.Helper()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "no-forbidden-key"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				}}}},
			Validations: []admissionregistrationv1.Validation{{Expression: `!has(object.data) || !('forbidden' in object.data)`,
				Message: "kubesplit's policy forbids the key forbidden"}},
		}}
	if _, err := ks.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx(t), policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "no-forbidden-key"},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy.Name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}}
	if _, err := ks.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx(t), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var last error
	ok := polltest.Holds(t, 15*time.Second, func(c context.Context) (bool, error) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "cm-"}, Data: map[string]string{"forbidden": "x"}}
		_, last = kube.CoreV1().ConfigMaps("team").Create(c, cm, metav1.CreateOptions{})
		return last != nil && strings.Contains(last.Error(), "kubesplit's policy forbids the key forbidden"), nil
	})
	if !ok {
		t.Fatalf("a ConfigMap the policy forbids, created at kube: %v, want kubesplit's policy denial", last)
	}
	// kube sends dryRun in the review; the policy decides just the same.
	dry := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dry"}, Data: map[string]string{"forbidden": "x"}}
	if _, err := kube.CoreV1().ConfigMaps("team").Create(ctx(t), dry, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err == nil ||
		!strings.Contains(err.Error(), "kubesplit's policy forbids the key forbidden") {
		t.Fatalf("a dry-run create the policy forbids, at kube: %v", err)
	}
	allowed := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "fine"}, Data: map[string]string{"ok": "x"}}
	created, err := kube.CoreV1().ConfigMaps("team").Create(ctx(t), allowed, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("a ConfigMap the policy allows, created at kube: %v", err)
	}
	// Updates (with the old object) and deletes pass through the
	// webhooks too.
	created.Data["more"] = "y"
	if _, err := kube.CoreV1().ConfigMaps("team").Update(ctx(t), created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update at kube: %v", err)
	}
	if err := kube.CoreV1().ConfigMaps("team").Delete(ctx(t), "fine", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete at kube: %v", err)
	}
}

// kubeAs is a clientset for kube-apiserver with token.
func kubeAs(t *testing.T, k *framework.KubeAPIServer, token string) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(&rest.Config{Host: k.URL(), BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAFile: k.CAFile}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestMakeRunWiresKube: the files make run writes are what a kube-apiserver
// needs as they are: started with the README's flags naming them, and the
// webhook configurations applied, kube authenticates kubesplit's admin
// token as kubesplit's admin and kubesplit's admission decides its writes.
func TestMakeRunWiresKube(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r := framework.StartMakeRun(t, dir)
	k := framework.StartKubeAPIServer(t,
		"--authentication-token-webhook-config-file="+filepath.Join(dir, "webhook-authn.kubeconfig"),
		"--authentication-token-webhook-version=v1",
		"--authorization-config="+filepath.Join(dir, "kube-authorization-config.yaml"),
		"--admission-control-config-file="+filepath.Join(dir, "kube-admission-config.yaml"))
	if out, err := k.Kubectl(t, "", "apply", "-f", filepath.Join(dir, "kube-admission-webhooks.yaml")); err != nil {
		t.Fatalf("applying kube-admission-webhooks.yaml to kube: %v\n%s", err, out)
	}
	tokens, err := os.ReadFile(filepath.Join(dir, "tokens.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var adminToken string
	for line := range strings.Lines(string(tokens)) {
		if f := strings.Split(line, ","); len(f) > 2 && f[1] == "admin" {
			adminToken = f[0]
		}
	}
	// kube's own admin has uid uid-admin; kubesplit's is admin.
	who, err := kubeAs(t, k, adminToken).AuthenticationV1().SelfSubjectReviews().Create(ctx(t),
		&authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil || who.Status.UserInfo.Username != "admin" || who.Status.UserInfo.UID != "admin" {
		t.Fatalf("kubesplit's admin token at kube: %+v, %v; want kubesplit's admin", who, err)
	}
	kube := k.Client(t)
	if _, err := kube.CoreV1().Namespaces().Create(ctx(t), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ghost"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = kube.CoreV1().ConfigMaps("ghost").Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), `namespaces "ghost" not found`) {
		t.Fatalf("write to kube in a namespace kubesplit does not have: %v, want kubesplit's NamespaceLifecycle denial", err)
	}
	if out, err := r.Kubectl(t, "create", "namespace", "ghost"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ok := polltest.Holds(t, 10*time.Second, func(c context.Context) (bool, error) {
		_, err := kube.CoreV1().ConfigMaps("ghost").Create(c, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "c-"}}, metav1.CreateOptions{})
		return err == nil, nil
	})
	if !ok {
		t.Fatal("once kubesplit has namespace ghost, kube's writes there are still refused")
	}
}
