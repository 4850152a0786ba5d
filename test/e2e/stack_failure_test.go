package e2e

import (
	"context"
	"io"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// Users of the outage test: each is asked about once, while the stage
// that would answer for it is down, so no cache can answer instead.
const (
	carolToken = "carol-token-0123456789"
	daveToken  = "dave-token-0123456789"
)

// TestStageOutagesFailClosed stops each stage in turn under the whole
// split stack: requests that need it are refused with 503 and Retry-After
// (never let through, never half-written), requests that do not need it
// keep working, and service resumes once the stage is back.
func TestStageOutagesFailClosed(t *testing.T) {
	s := framework.StartStack(t, framework.StackOptions{Users: []string{
		carolToken + `,carol,uid-carol,"testers"`,
		daveToken + `,dave,uid-dave,"testers"`,
	}})
	admin := s.Client(t, s.AdminToken)
	c := ctx(t)
	const ns = "outage"
	if _, err := admin.CoreV1().Namespaces().Create(c, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bindEdit(t, admin, ns, rbacv1.Subject{Kind: rbacv1.GroupKind, Name: "testers"})
	bindEdit(t, admin, ns, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "robot", Namespace: ns})
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(c, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(c, "robot", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	robotToken := tr.Status.Token
	list := "/api/v1/namespaces/" + ns + "/configmaps"

	t.Run("authz", func(t *testing.T) {
		outage(t, s, framework.StageAuthz, func() (int, http.Header, string) {
			return stackDo(t, s, http.MethodGet, list, carolToken, "")
		}, func() (int, http.Header, string) { return stackDo(t, s, http.MethodGet, list, s.AdminToken, "") })
	})
	t.Run("authn", func(t *testing.T) {
		outage(t, s, framework.StageAuthn, func() (int, http.Header, string) {
			return stackDo(t, s, http.MethodGet, list, robotToken, "")
		}, func() (int, http.Header, string) { return stackDo(t, s, http.MethodGet, list, daveToken, "") })
	})
	t.Run("admission", func(t *testing.T) {
		// A quota makes every create in the namespace one admission must
		// see; writes no admission rule applies to need no admission.
		quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q"},
			Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"configmaps": resource.MustParse("100")}}}
		if _, err := admin.CoreV1().ResourceQuotas(ns).Create(c, quota, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		polltest.Until(t, 10*time.Second, "the quota's status", func() bool {
			q, err := admin.CoreV1().ResourceQuotas(ns).Get(c, "q", metav1.GetOptions{})
			return err == nil && len(q.Status.Hard) > 0
		})
		before := s.Etcd.Snapshot(t, configMapsPrefix)
		n := 0
		outage(t, s, framework.StageAdmission, func() (int, http.Header, string) {
			n++
			body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"during-` + string(rune('a'+n%26)) + `"}}`
			code, h, b := stackDo(t, s, http.MethodPost, list, s.AdminToken, body)
			if code != http.StatusCreated && !maps.Equal(before, s.Etcd.Snapshot(t, configMapsPrefix)) {
				t.Fatalf("a refused create changed etcd")
			}
			return code, h, b
		}, func() (int, http.Header, string) { return stackDo(t, s, http.MethodGet, list, s.AdminToken, "") })
	})
	t.Run("registry", func(t *testing.T) {
		outage(t, s, framework.StageRegistry, func() (int, http.Header, string) {
			return stackDo(t, s, http.MethodGet, list, s.AdminToken, "")
		}, func() (int, http.Header, string) {
			// The aggregator itself stays live; only kube's etcd check,
			// which asks the registry, fails.
			return stackDo(t, s, http.MethodGet, "/livez?exclude=etcd", "", "")
		})
	})
}

// outage stops stage, checks that need (a request only it can serve) is
// refused with 503 and Retry-After while other (one it is not needed
// for) still succeeds, then starts the stage again and waits for need to
// succeed.
func outage(t *testing.T, s *framework.Stack, stage string, need, other func() (int, http.Header, string)) {
	t.Helper()
	s.Stop(t, stage)
	code, h, body := need()
	if code != http.StatusServiceUnavailable || h.Get("Retry-After") == "" {
		t.Errorf("with %s down: %d (Retry-After %q) %s, want 503 with Retry-After", stage, code, h.Get("Retry-After"), body)
	}
	if code, _, body := other(); code >= 300 {
		t.Errorf("with %s down, a request that does not need it: %d %s", stage, code, body)
	}
	s.Start(t, stage)
	start := time.Now()
	if !polltest.Holds(t, 60*time.Second, func(context.Context) (bool, error) {
		code, _, body = need()
		return code < 300, nil
	}) {
		t.Fatalf("%s back, but the request still fails: %d %s", stage, code, body)
	}
	t.Logf("%s: refused while down, served again %v after its restart began", stage, time.Since(start).Round(time.Millisecond))
}

// bindEdit gives subject the edit ClusterRole in ns.
func bindEdit(t *testing.T, admin kubernetes.Interface, ns string, subject rbacv1.Subject) {
	t.Helper()
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "edit-"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{subject},
	}
	if subject.Kind != rbacv1.ServiceAccountKind {
		rb.Subjects[0].APIGroup = rbacv1.GroupName
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx(t), rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// stackDo sends one request to the stack's aggregator with token (none
// when empty) and a JSON body (none when empty).
func stackDo(t *testing.T, s *framework.Stack, method, path, token, body string) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.Aggregator.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.HTTPClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}
