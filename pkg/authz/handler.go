package authz

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// maxReviewBytes bounds a review body; kube-apiserver's limit for a whole
// request is 3 MiB, and a review is far smaller.
const maxReviewBytes = 3 << 20

// reviewKind names the type in Invalid errors.
var reviewKind = schema.GroupKind{Group: authorizationv1.GroupName, Kind: "SubjectAccessReview"}

// reviewCodec reads and writes reviews as JSON (kube's webhook authorizer),
// YAML or protobuf (client-go's typed clients, through the aggregator).
var reviewCodec = webhook.NewCodec(authorizationv1.SchemeGroupVersion, &authorizationv1.SubjectAccessReview{})

// reviewHandler serves an Authorizer as a SubjectAccessReview webhook.
type reviewHandler struct {
	authorizer Authorizer
}

// NewSubjectAccessReviewHandler serves a as kube's SubjectAccessReview
// endpoint (mount it at SubjectAccessReviewPath for POST): it answers
// 201 Created with the review and its status (allowed, denied, reason,
// evaluationError), and the answer's revision in RevisionHeader. That is
// what kube's webhook authorizer expects, so a real kube-apiserver can use
// it too. It reads and answers JSON, YAML or protobuf, as the request's
// Content-Type and Accept say, so that client-go's typed clients (protobuf
// by default) can create reviews too. An authorizer error is an evaluationError in a 201, as kube's own
// endpoint does, not an HTTP error. A nil a answers every review with an
// evaluationError, which no client reads as an allow.
func NewSubjectAccessReviewHandler(a Authorizer) http.Handler {
	return &reviewHandler{authorizer: a}
}

// ServeHTTP implements http.Handler.
func (h *reviewHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	review, ok := decodeReview(w, r)
	if !ok {
		return
	}
	res, err := h.authorize(r, review)
	review.TypeMeta = reviewTypeMeta
	review.Status = ReviewStatus(res, err)
	if res.Revision != 0 {
		w.Header().Set(RevisionHeader, strconv.FormatInt(res.Revision, 10))
	}
	reviewCodec.Write(w, r, http.StatusCreated, review)
}

func (h *reviewHandler) authorize(r *http.Request, review *authorizationv1.SubjectAccessReview) (Result, error) {
	if h.authorizer == nil {
		return Result{Decision: DecisionNoOpinion}, errors.New("no authorizer configured")
	}
	return h.authorizer.Authorize(r.Context(), attributesOf(&review.Spec))
}

// decodeReview reads and validates the posted review. When it cannot be
// answered it has written the Status error kube's endpoint would give and
// returns false.
func decodeReview(w http.ResponseWriter, r *http.Request) (*authorizationv1.SubjectAccessReview, bool) {
	var review authorizationv1.SubjectAccessReview
	if !reviewCodec.DecodeRequest(w, r, authorizationv1.Resource("subjectaccessreviews"), maxReviewBytes, &review) {
		return nil, false
	}
	// An empty type means "the endpoint's type", as kube's create handler
	// reads it; anything else is a different object.
	if tm := review.TypeMeta; (tm.Kind != "" || tm.APIVersion != "") && tm != reviewTypeMeta {
		apierror.Write(w, apierrors.NewBadRequest(fmt.Sprintf("expected %s %s, got %s %s",
			reviewTypeMeta.APIVersion, reviewTypeMeta.Kind, tm.APIVersion, tm.Kind)))
		return nil, false
	}
	if errs := validateSpec(&review.Spec); len(errs) > 0 {
		apierror.Write(w, apierrors.NewInvalid(reviewKind, "", errs))
		return nil, false
	}
	return &review, true
}

// validateSpec checks what kube's SubjectAccessReview endpoint checks.
func validateSpec(spec *authorizationv1.SubjectAccessReviewSpec) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("spec")
	if (spec.ResourceAttributes == nil) == (spec.NonResourceAttributes == nil) {
		errs = append(errs, field.Invalid(path.Child("resourceAttributes"), spec.ResourceAttributes,
			"exactly one of nonResourceAttributes or resourceAttributes must be specified"))
	}
	if spec.User == "" && len(spec.Groups) == 0 {
		errs = append(errs, field.Invalid(path.Child("user"), spec.User,
			"at least one of user or group must be specified"))
	}
	return errs
}
