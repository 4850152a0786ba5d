package e2e

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// aggregatorClientset is client-go against the aggregator, trusting its
// CA, with what creds sets (a token or a client certificate).
func aggregatorClientset(t *testing.T, agg *framework.Aggregator, creds func(*rest.Config)) *kubernetes.Clientset {
	t.Helper()
	cfg := &rest.Config{Host: agg.URL, TLSClientConfig: rest.TLSClientConfig{CAFile: agg.CAFile}, Timeout: 20 * time.Second}
	creds(cfg)
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func withCert(certPEM, keyPEM []byte) func(*rest.Config) {
	return func(c *rest.Config) { c.CertData, c.KeyData = certPEM, keyPEM }
}

// TestClientCertificateThroughAggregator: a client certificate from the
// --client-ca-file CA authenticates as its CN with its O as groups, is
// authorized like any user (denied, then allowed by a group binding), and
// a certificate from another CA is refused.
func TestClientCertificateThroughAggregator(t *testing.T) {
	ca := framework.NewCertAuthority(t, "e2e-client-ca")
	s := framework.StartStack(t, framework.StackOptions{Args: map[string][]string{
		framework.StageAggregator: {"--client-ca-file", ca.File(t)},
	}})
	agg := s.Aggregator
	alice := aggregatorClientset(t, agg, withCert(ca.Issue(t, "alice", "team-a")))
	admin := s.Client(t, s.AdminToken)

	review, err := alice.AuthenticationV1().SelfSubjectReviews().Create(ctx(t), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("whoami as alice: %v", err)
	}
	if u := review.Status.UserInfo; u.Username != "alice" || !slices.Contains(u.Groups, "team-a") || !slices.Contains(u.Groups, "system:authenticated") {
		t.Errorf("whoami as alice = %+v, want alice in team-a and system:authenticated", u)
	}

	_, err = alice.CoreV1().ConfigMaps("default").List(ctx(t), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `"alice"`) {
		t.Fatalf("alice listing configmaps before any binding = %v, want Forbidden naming alice", err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "team-a-view"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "team-a"}},
	}
	if _, err := admin.RbacV1().RoleBindings("default").Create(ctx(t), binding, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the RoleBinding: %v", err)
	}
	if !polltest.Holds(t, 30*time.Second, func(c context.Context) (bool, error) {
		_, err = alice.CoreV1().ConfigMaps("default").List(c, metav1.ListOptions{})
		return err == nil, nil
	}) {
		t.Fatalf("alice listing configmaps after the group's RoleBinding: %v", err)
	}

	mallory := aggregatorClientset(t, agg, withCert(framework.NewCertAuthority(t, "other-ca").Issue(t, "mallory", "team-a")))
	_, err = mallory.CoreV1().ConfigMaps("default").List(ctx(t), metav1.ListOptions{})
	// The handshake fails on the server's side; with TLS 1.3 the client
	// may learn it as the alert or as a broken connection, but never as
	// an answer from the API.
	var status apierrors.APIStatus
	if err == nil || errors.As(err, &status) {
		t.Errorf("a certificate from another CA = %v, want a refused TLS handshake, not an API answer", err)
	}
}

func withToken(token string) func(*rest.Config) {
	return func(c *rest.Config) { c.BearerToken = token }
}
