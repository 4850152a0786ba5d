package authz

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesplit/kubesplit/pkg/apierror"
)

// maxReviewBytes bounds a review body; kube-apiserver's limit for a whole
// request is 3 MiB, and a review is far smaller.
const maxReviewBytes = 3 << 20

// reviewKind names the type in Invalid errors.
var reviewKind = schema.GroupKind{Group: authorizationv1.GroupName, Kind: "SubjectAccessReview"}

// reviewHandler serves an Authorizer as a SubjectAccessReview webhook.
type reviewHandler struct {
	authorizer Authorizer
}

// NewSubjectAccessReviewHandler serves a as kube's SubjectAccessReview
// endpoint (mount it at SubjectAccessReviewPath for POST): it answers
// 201 Created with the review and its status (allowed, denied, reason,
// evaluationError), and the answer's revision in RevisionHeader. That is
// what kube's webhook authorizer expects, so a real kube-apiserver can use
// it too. An authorizer error is an evaluationError in a 201, as kube's own
// endpoint does, not an HTTP error. A nil a answers every review with an
// evaluationError, which no client reads as an allow.
func NewSubjectAccessReviewHandler(a Authorizer) http.Handler {
	return &reviewHandler{authorizer: a}
}

// ServeHTTP implements http.Handler.
func (h *reviewHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		apierror.Write(w, apierrors.NewMethodNotSupported(authorizationv1.Resource("subjectaccessreviews"), r.Method))
		return
	}
	review, err := decodeReview(w, r)
	if err != nil {
		apierror.Write(w, err)
		return
	}
	res, err := h.authorize(r, review)
	review.TypeMeta = reviewTypeMeta
	review.Status = statusOf(res, err)
	body, err := json.Marshal(review)
	if err != nil {
		apierror.Write(w, apierrors.NewInternalError(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if res.Revision != 0 {
		w.Header().Set(RevisionHeader, strconv.FormatInt(res.Revision, 10))
	}
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(append(body, '\n'))
}

func (h *reviewHandler) authorize(r *http.Request, review *authorizationv1.SubjectAccessReview) (Result, error) {
	if h.authorizer == nil {
		return Result{Decision: DecisionNoOpinion}, errors.New("no authorizer configured")
	}
	return h.authorizer.Authorize(r.Context(), attributesOf(&review.Spec))
}

// decodeReview reads and validates the posted review; its errors are API
// errors ready to write.
func decodeReview(w http.ResponseWriter, r *http.Request) (*authorizationv1.SubjectAccessReview, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "application/json" {
			return nil, unsupportedMediaType(ct)
		}
	}
	var review authorizationv1.SubjectAccessReview
	err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxReviewBytes)).Decode(&review)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d bytes", maxReviewBytes))
	case err != nil:
		return nil, apierrors.NewBadRequest("decoding SubjectAccessReview: " + err.Error())
	}
	// An empty type means "the endpoint's type", as kube's create handler
	// reads it; anything else is a different object.
	if tm := review.TypeMeta; (tm.Kind != "" || tm.APIVersion != "") && tm != reviewTypeMeta {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("expected %s %s, got %s %s",
			reviewTypeMeta.APIVersion, reviewTypeMeta.Kind, tm.APIVersion, tm.Kind))
	}
	if errs := validateSpec(&review.Spec); len(errs) > 0 {
		return nil, apierrors.NewInvalid(reviewKind, "", errs)
	}
	return &review, nil
}

// unsupportedMediaType is kube's 415: the webhook protocol is JSON.
func unsupportedMediaType(ct string) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json; got %q", ct),
	}}
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
