package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
)

// bobMayListIn asks whether bob may list configmaps in specNS, in ns.
func bobMayListIn(specNS string) *authorizationv1.LocalSubjectAccessReview {
	return &authorizationv1.LocalSubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:               "bob",
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: specNS, Verb: "list", Resource: "configmaps"},
	}}
}

// TestLocalSubjectAccessReviewThroughAggregator: client-go's
// LocalSubjectAccessReviews, in JSON and protobuf, are answered by authz
// through the aggregator with the policy that decides requests; creating
// one is authorized in its namespace; a namespace other than the URL's is
// 400; kubectl api-resources lists the review as namespaced.
func TestLocalSubjectAccessReviewThroughAggregator(t *testing.T) {
	agg, _, _ := startAuthzStack(t)
	admin := aggregatorClientset(t, agg, withToken(authzAdminToken))
	adminProto := aggregatorClientset(t, agg, func(c *rest.Config) {
		c.BearerToken = authzAdminToken
		c.ContentType = runtime.ContentTypeProtobuf
		c.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	})
	bob := aggregatorClientset(t, agg, withToken(authzBobToken))
	allowed := func(c context.Context, proto bool) (bool, error) {
		cs := admin
		if proto {
			cs = adminProto
		}
		got, err := cs.AuthorizationV1().LocalSubjectAccessReviews("default").Create(c, bobMayListIn(""), metav1.CreateOptions{})
		if err != nil {
			return false, err
		}
		if got.Namespace != "default" || got.Spec.ResourceAttributes.Namespace != "default" {
			t.Errorf("answered review in %q about %q, want default", got.Namespace, got.Spec.ResourceAttributes.Namespace)
		}
		return got.Status.Allowed, nil
	}

	for _, proto := range []bool{false, true} {
		if ok, err := allowed(ctx(t), proto); err != nil || ok {
			t.Fatalf("bob may list before any binding (protobuf %v) = %v %v, want false", proto, ok, err)
		}
	}
	_, err := admin.AuthorizationV1().LocalSubjectAccessReviews("default").Create(ctx(t), bobMayListIn("kube-system"), metav1.CreateOptions{})
	if !apierrors.IsBadRequest(err) {
		t.Errorf("review about another namespace = %v, want BadRequest", err)
	}
	_, err = bob.AuthorizationV1().LocalSubjectAccessReviews("default").Create(ctx(t), bobMayListIn(""), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "localsubjectaccessreviews") {
		t.Errorf("bob creating a review = %v, want Forbidden on localsubjectaccessreviews", err)
	}

	if out, err := agg.Kubectl(t, agg.Kubeconfig(t, "admin", authzAdminToken), "", "create", "rolebinding", "bob-view",
		"--clusterrole=view", "--user=bob", "-n", "default"); err != nil {
		t.Fatalf("create rolebinding: %v\n%s", err, out)
	}
	for _, proto := range []bool{false, true} {
		if !polltest.Holds(t, 30*time.Second, func(c context.Context) (bool, error) { return allowed(c, proto) }) {
			t.Fatalf("bob never allowed to list after the RoleBinding (protobuf %v)", proto)
		}
	}

	out, err := agg.Kubectl(t, agg.Kubeconfig(t, "admin", authzAdminToken), "",
		"api-resources", "--api-group=authorization.k8s.io", "--namespaced=true", "-o", "name")
	if err != nil || !strings.Contains(out, "localsubjectaccessreviews.authorization.k8s.io") {
		t.Errorf("kubectl api-resources --namespaced=true: %v\n%s", err, out)
	}
}
