package authz

import (
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/request"
)

// Where kube-apiserver serves the reviews a user asks about itself
// (kubectl auth can-i, and can-i --list).
const (
	SelfSubjectAccessReviewPath = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	SelfSubjectRulesReviewPath  = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
)

// newSelfSubjectAccessReviewHandler answers SelfSubjectAccessReviews with
// a, the chain that answers the aggregator's SubjectAccessReviews, so that
// can-i says what a request would meet. The subject is the caller the
// aggregator asserted (identity.Require runs first), never the body's.
func newSelfSubjectAccessReviewHandler(a authz.Authorizer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok := callerOf(w, r)
		if !ok {
			return
		}
		var review authorizationv1.SelfSubjectAccessReview
		gvk := authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectAccessReview")
		if !decodeObject(w, r, gvk, &review) {
			return
		}
		spec := review.Spec
		if (spec.ResourceAttributes == nil) == (spec.NonResourceAttributes == nil) {
			apierror.Write(w, apierrors.NewInvalid(gvk.GroupKind(), "", field.ErrorList{field.Invalid(
				field.NewPath("spec", "resourceAttributes"), spec.ResourceAttributes,
				"exactly one of nonResourceAttributes or resourceAttributes must be specified")}))
			return
		}
		res, err := a.Authorize(r.Context(), selfAttributes(user, &spec))
		review.Status = authz.ReviewStatus(res, err)
		writeObject(w, r, http.StatusCreated, authorizationv1.SchemeGroupVersion, &review)
	})
}

// callerOf is the user the aggregator asserted for r; without one (a
// route set up without identity.Require) it has written 401.
func callerOf(w http.ResponseWriter, r *http.Request) (authenticationv1.UserInfo, bool) {
	u, ok := request.UserFrom(r.Context())
	if !ok {
		apierror.Write(w, apierrors.NewUnauthorized("no asserted caller on the request"))
		return authenticationv1.UserInfo{}, false
	}
	return u, true
}

// selfAttributes asks about user doing what spec names.
func selfAttributes(user authenticationv1.UserInfo, spec *authorizationv1.SelfSubjectAccessReviewSpec) authz.Attributes {
	a := authz.Attributes{User: user}
	if ra := spec.ResourceAttributes; ra != nil {
		a.ResourceRequest = true
		a.Verb, a.Namespace, a.Name = ra.Verb, ra.Namespace, ra.Name
		a.APIGroup, a.APIVersion = ra.Group, ra.Version
		a.Resource, a.Subresource = ra.Resource, ra.Subresource
		return a
	}
	a.Verb, a.Path = spec.NonResourceAttributes.Verb, spec.NonResourceAttributes.Path
	return a
}
