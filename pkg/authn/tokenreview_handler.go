package authn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apierror"
)

// TokenReviewPath is where kube-apiserver serves TokenReview creation, and
// where the authn service mounts NewTokenReviewHandler.
const TokenReviewPath = "/apis/authentication.k8s.io/v1/tokenreviews"

// MaxTokenReviewBytes bounds a TokenReview body, in either direction. A
// review is a token and a few audiences; anything near this is an attack or
// a mistake.
const MaxTokenReviewBytes = 1 << 20

// tokenReviews names the resource in error messages.
var tokenReviews = schema.GroupResource{Group: authenticationv1.GroupName, Resource: "tokenreviews"}

// NewTokenReviewHandler serves a as the authentication.k8s.io/v1 TokenReview
// webhook: POST a TokenReview, get it back with its status filled in and
// 201 Created, as kube-apiserver answers, so that WebhookClient and a real
// kube-apiserver (--authentication-token-webhook-config-file) can both use
// it. An authenticator error is not an HTTP error: it goes into
// status.error, the protocol's way to say "could not check the token".
// A malformed, oversized or wrong-kind request gets a 4xx Status.
func NewTokenReviewHandler(a Authenticator) http.Handler {
	a = orFailing(a)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		review, err := readTokenReview(w, r)
		if err != nil {
			apierror.Write(w, err)
			return
		}
		review.Status = reviewStatus(r.Context(), a, review.Spec)
		// The token is not echoed back, unlike kube-apiserver: nothing needs
		// it, and response bodies end up in logs.
		review.Spec.Token = ""
		review.Kind, review.APIVersion = "TokenReview", authenticationv1.SchemeGroupVersion.String()
		body, err := json.Marshal(review)
		if err != nil {
			apierror.Write(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(append(body, '\n'))
	})
}

// readTokenReview decodes and checks the request, answering with the Status
// error kube-apiserver would give.
func readTokenReview(w http.ResponseWriter, r *http.Request) (*authenticationv1.TokenReview, error) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return nil, apierrors.NewMethodNotSupported(tokenReviews, r.Method)
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return nil, unsupportedMediaType(ct)
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxTokenReviewBytes))
	if err != nil {
		if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
			return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d bytes", MaxTokenReviewBytes))
		}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("reading TokenReview: %v", err))
	}
	review := &authenticationv1.TokenReview{}
	if err := json.Unmarshal(body, review); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("malformed TokenReview: %v", err))
	}
	if err := checkTypeMeta(review.TypeMeta); err != nil {
		return nil, err
	}
	if review.Spec.Token == "" {
		return nil, apierrors.NewBadRequest("token is required for TokenReview in authentication")
	}
	return review, nil
}

// checkTypeMeta accepts an empty kind and apiVersion (the path says what
// they are, as kube-apiserver infers them) but nothing else than a v1
// TokenReview.
func checkTypeMeta(tm metav1.TypeMeta) error {
	want := authenticationv1.SchemeGroupVersion.String()
	if tm.APIVersion != "" && tm.APIVersion != want {
		return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", tm.APIVersion, want))
	}
	if tm.Kind != "" && tm.Kind != "TokenReview" {
		return apierrors.NewBadRequest(fmt.Sprintf("the kind in the data (%s) does not match the expected kind (TokenReview)", tm.Kind))
	}
	return nil
}

// reviewStatus asks a about the token for the audiences in spec.
func reviewStatus(ctx context.Context, a Authenticator, spec authenticationv1.TokenReviewSpec) authenticationv1.TokenReviewStatus {
	if len(spec.Audiences) > 0 {
		ctx = WithAudiences(ctx, spec.Audiences)
	}
	resp, ok, err := a.AuthenticateToken(ctx, spec.Token)
	switch {
	case err != nil:
		return authenticationv1.TokenReviewStatus{Error: err.Error()}
	case !ok || resp == nil:
		return authenticationv1.TokenReviewStatus{}
	}
	auds := resp.Audiences
	if len(spec.Audiences) > 0 && len(auds) > 0 {
		// The status audiences must be among those asked for; an
		// authenticator answering for others did not recognise this token
		// for this caller.
		if auds = intersect(spec.Audiences, auds); len(auds) == 0 {
			return authenticationv1.TokenReviewStatus{}
		}
	}
	return authenticationv1.TokenReviewStatus{
		Authenticated: true,
		User:          withAuthenticatedGroup(resp.User),
		Audiences:     auds,
	}
}

// unsupportedMediaType is kube-apiserver's 415 for a body it cannot decode.
func unsupportedMediaType(contentType string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: fmt.Sprintf("the body of the request was in an unknown format (%s) - accepted media types include: application/json", contentType),
	}}
}
