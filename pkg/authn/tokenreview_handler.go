package authn

import (
	"context"
	"fmt"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/webhook"
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

// tokenReviewCodec reads and writes reviews as JSON (kube's webhook token
// authenticator), YAML or protobuf (client-go's typed clients, through the
// aggregator).
var tokenReviewCodec = webhook.NewCodec(authenticationv1.SchemeGroupVersion, &authenticationv1.TokenReview{})

// NewTokenReviewHandler serves a as the authentication.k8s.io/v1 TokenReview
// webhook: POST a TokenReview, get it back with its status filled in and
// 201 Created, as kube-apiserver answers, so that WebhookClient and a real
// kube-apiserver (--authentication-token-webhook-config-file) can both use
// it. It reads and answers JSON, YAML or protobuf, as the request's
// Content-Type and Accept say, so that client-go's typed clients (protobuf
// by default) can create reviews too. An authenticator error is not an HTTP error: it goes into
// status.error, the protocol's way to say "could not check the token".
// A malformed, oversized or wrong-kind request gets a 4xx Status.
func NewTokenReviewHandler(a Authenticator) http.Handler {
	a = orFailing(a)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		review, ok := readTokenReview(w, r)
		if !ok {
			return
		}
		review.Status = reviewStatus(r.Context(), a, review.Spec)
		// The token is not echoed back, unlike kube-apiserver: nothing needs
		// it, and response bodies end up in logs.
		review.Spec.Token = ""
		review.Kind, review.APIVersion = "TokenReview", authenticationv1.SchemeGroupVersion.String()
		tokenReviewCodec.Write(w, r, http.StatusCreated, review)
	})
}

// readTokenReview decodes and checks the request. When it cannot be
// answered it has written the Status error kube-apiserver would give and
// returns false.
func readTokenReview(w http.ResponseWriter, r *http.Request) (*authenticationv1.TokenReview, bool) {
	review := &authenticationv1.TokenReview{}
	if !tokenReviewCodec.DecodeRequest(w, r, tokenReviews, MaxTokenReviewBytes, review) {
		return nil, false
	}
	if err := checkTypeMeta(review.TypeMeta); err != nil {
		apierror.Write(w, err)
		return nil, false
	}
	if review.Spec.Token == "" {
		apierror.Write(w, apierrors.NewBadRequest("token is required for TokenReview in authentication"))
		return nil, false
	}
	return review, true
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
