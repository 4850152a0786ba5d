package authn

import (
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// SelfSubjectReviewPath is where kube serves SelfSubjectReview creation.
const SelfSubjectReviewPath = "/apis/authentication.k8s.io/v1/selfsubjectreviews"

// maxSelfSubjectReviewBytes bounds the body: a real one is empty but for
// its type meta.
const maxSelfSubjectReviewBytes = 64 << 10

var selfSubjectReviews = schema.GroupResource{Group: authenticationv1.GroupName, Resource: "selfsubjectreviews"}

// selfSubjectReviewHandler answers who the caller is (kubectl auth whoami)
// from the aggregator's assertion, which already holds the result of
// authentication and impersonation: asking again would only be slower.
func selfSubjectReviewHandler(w http.ResponseWriter, r *http.Request) {
	if err := readSelfSubjectReview(r); err != nil {
		apierror.Write(w, err)
		return
	}
	u, ok := request.UserFrom(r.Context())
	if !ok {
		apierror.Write(w, apierrors.NewUnauthorized("no identity assertion"))
		return
	}
	out := authenticationv1.SelfSubjectReview{
		TypeMeta:   metav1.TypeMeta{Kind: "SelfSubjectReview", APIVersion: authenticationv1.SchemeGroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.Now()},
		Status:     authenticationv1.SelfSubjectReviewStatus{UserInfo: u},
	}
	webhook.WriteJSON(w, http.StatusCreated, out)
}
