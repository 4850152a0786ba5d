package authz

import (
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SubjectAccessReviewPath is where kube-apiserver serves
// SubjectAccessReviews, and where the authz service serves its handler.
const SubjectAccessReviewPath = "/apis/authorization.k8s.io/v1/subjectaccessreviews"

// RevisionHeader carries Result.Revision on the webhook's answer. A header,
// not a status field, so that standard SubjectAccessReview clients ignore it
// and the review body stays exactly kube's.
const RevisionHeader = "X-Kubesplit-Policy-Revision"

// reviewTypeMeta is the only type the webhook speaks, both ways.
var reviewTypeMeta = metav1.TypeMeta{
	APIVersion: authorizationv1.SchemeGroupVersion.String(),
	Kind:       "SubjectAccessReview",
}

// newReview is the SubjectAccessReview asking about a, shaped as kube's
// webhook authorizer sends it.
func newReview(a Attributes) *authorizationv1.SubjectAccessReview {
	r := &authorizationv1.SubjectAccessReview{
		TypeMeta: reviewTypeMeta,
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User:   a.User.Username,
			UID:    a.User.UID,
			Groups: a.User.Groups,
		},
	}
	if len(a.User.Extra) > 0 {
		r.Spec.Extra = make(map[string]authorizationv1.ExtraValue, len(a.User.Extra))
		for k, v := range a.User.Extra {
			r.Spec.Extra[k] = authorizationv1.ExtraValue(v)
		}
	}
	if a.ResourceRequest {
		r.Spec.ResourceAttributes = &authorizationv1.ResourceAttributes{
			Namespace:   a.Namespace,
			Verb:        a.Verb,
			Group:       a.APIGroup,
			Version:     a.APIVersion,
			Resource:    a.Resource,
			Subresource: a.Subresource,
			Name:        a.Name,
		}
	} else {
		r.Spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: a.Path, Verb: a.Verb}
	}
	return r
}

// attributesOf is the inverse of newReview.
func attributesOf(spec *authorizationv1.SubjectAccessReviewSpec) Attributes {
	a := Attributes{User: authenticationv1.UserInfo{Username: spec.User, UID: spec.UID, Groups: spec.Groups}}
	if len(spec.Extra) > 0 {
		a.User.Extra = make(map[string]authenticationv1.ExtraValue, len(spec.Extra))
		for k, v := range spec.Extra {
			a.User.Extra[k] = authenticationv1.ExtraValue(v)
		}
	}
	if ra := spec.ResourceAttributes; ra != nil {
		a.ResourceRequest = true
		a.Verb = ra.Verb
		a.Namespace = ra.Namespace
		a.APIGroup = ra.Group
		a.APIVersion = ra.Version
		a.Resource = ra.Resource
		a.Subresource = ra.Subresource
		a.Name = ra.Name
	} else if nra := spec.NonResourceAttributes; nra != nil {
		a.Verb = nra.Verb
		a.Path = nra.Path
	}
	return a
}

// ReviewStatus is the review status for an answer, as kube's SubjectAccessReview
// endpoint fills it.
func ReviewStatus(res Result, err error) authorizationv1.SubjectAccessReviewStatus {
	s := authorizationv1.SubjectAccessReviewStatus{
		Allowed: res.Decision == DecisionAllow,
		Denied:  res.Decision == DecisionDeny,
		Reason:  res.Reason,
	}
	if err != nil {
		s.EvaluationError = err.Error()
	}
	return s
}

// resultOf reads a review status the way kube's webhook authorizer does;
// it does not set Result.Revision, which travels beside the body.
func resultOf(s authorizationv1.SubjectAccessReviewStatus) (Result, error) {
	res := Result{Reason: s.Reason}
	switch {
	case s.Allowed && s.Denied:
		res.Decision = DecisionDeny
		return res, fmt.Errorf("%w: both allowed and denied", ErrMalformedReview)
	case s.Allowed:
		res.Decision = DecisionAllow
	case s.Denied:
		res.Decision = DecisionDeny
	default:
		res.Decision = DecisionNoOpinion
	}
	if s.EvaluationError != "" {
		return res, fmt.Errorf("%w: %s", ErrEvaluation, s.EvaluationError)
	}
	return res, nil
}
