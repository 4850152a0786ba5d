package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

const tlsUserToken = "tls-user-token-0123456789"

// TestStackWithTLSBetweenServices runs every hop between the services over
// HTTPS, as deploys do: each stage is still used (authn for a
// service-account token, authz for an RBAC decision, admission for a
// pod's service account, the registry for storage), and the backends no
// longer answer plain HTTP.
func TestStackWithTLSBetweenServices(t *testing.T) {
	s := framework.StartStack(t, framework.StackOptions{Users: []string{tlsUserToken + ",tess,uid-tess"}})
	admin := s.Client(t, s.AdminToken)
	c := ctx(t)
	if _, err := admin.CoreV1().ServiceAccounts("default").Create(c, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "tls-robot"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bindEdit(t, admin, "default", rbacv1.Subject{Kind: rbacv1.UserKind, Name: "tess"})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "tls-pod"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	var created *corev1.Pod
	var err error
	if !polltest.Holds(t, 30*time.Second, func(ctx context.Context) (bool, error) {
		created, err = s.Client(t, tlsUserToken).CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
		return err == nil, nil
	}) {
		t.Fatalf("tess creating a pod (authz and admission over TLS): %v", err)
	}
	if created.Spec.ServiceAccountName != "default" {
		t.Errorf("pod's service account = %q, want default from admission", created.Spec.ServiceAccountName)
	}
	tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(c, "tls-robot", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest through authn over TLS: %v", err)
	}
	review, err := s.Client(t, tr.Status.Token).AuthenticationV1().SelfSubjectReviews().Create(c, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil || review.Status.UserInfo.Username != "system:serviceaccount:default:tls-robot" {
		t.Fatalf("whoami with the service-account token: %v %+v", err, review)
	}
	for _, stage := range []string{framework.StageRegistry, framework.StageAuthn, framework.StageAuthz, framework.StageAdmission} {
		resp, err := http.Get("http://" + s.Addr[stage] + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		if err == nil && resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s answered plain HTTP with %d", stage, resp.StatusCode)
		}
	}
	if out, err := s.Aggregator.Kubectl(t, s.Aggregator.Kubeconfig(t, "admin", s.AdminToken), "", "get", "pods", "-o", "name"); err != nil || !strings.Contains(out, "pod/tls-pod") {
		t.Errorf("kubectl get pods: %v\n%s", err, out)
	}
}
