package escalation

import (
	"context"
	"encoding/json"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
)

// reviewer asks authz, through the API, whether a user may do something.
type reviewer struct {
	// client is the authorization group's REST client. Reviews are posted
	// through it as JSON rather than with the typed client: client-go sends
	// built-in types as protobuf by default, and the SubjectAccessReview
	// webhook (pkg/authz, and most third-party ones) reads only JSON.
	client rest.Interface
	// typed is used only when there is no REST client (a fake clientset in
	// another package's tests).
	typed authorizationclient.SubjectAccessReviewInterface
}

// newReviewer asks through c.
func newReviewer(c kubernetes.Interface) *reviewer {
	r := &reviewer{client: c.AuthorizationV1().RESTClient(), typed: c.AuthorizationV1().SubjectAccessReviews()}
	if rc, ok := r.client.(*rest.RESTClient); r.client == nil || (ok && rc == nil) {
		r.client = nil
	}
	return r
}

// verdict is authz's answer to one review. A denial may come with an
// evaluation error (authz could not resolve every grant, e.g. a binding to
// a missing role): like kube's rule resolution errors it does not stop the
// check, it is only reported.
type verdict struct {
	allowed         bool
	evaluationError string
}

// ask posts one SubjectAccessReview for user. An error means authz (or the
// API in front of it) could not be asked, and the caller must not allow.
func (r *reviewer) ask(ctx context.Context, user authenticationv1.UserInfo, q query) (verdict, error) {
	out, err := r.post(ctx, &authorizationv1.SubjectAccessReview{
		TypeMeta: metav1.TypeMeta{APIVersion: authorizationv1.SchemeGroupVersion.String(), Kind: "SubjectAccessReview"},
		Spec:     specFor(user, q),
	})
	if err != nil {
		return verdict{}, fmt.Errorf("escalation: SubjectAccessReview %s: %w", q, err)
	}
	return verdict{allowed: out.Status.Allowed, evaluationError: out.Status.EvaluationError}, nil
}

// post creates sar, as JSON when it can.
func (r *reviewer) post(ctx context.Context, sar *authorizationv1.SubjectAccessReview) (*authorizationv1.SubjectAccessReview, error) {
	if r.client == nil {
		return r.typed.Create(ctx, sar, metav1.CreateOptions{})
	}
	body, err := json.Marshal(sar)
	if err != nil {
		return nil, err
	}
	var out authorizationv1.SubjectAccessReview
	err = r.client.Post().Resource("subjectaccessreviews").
		SetHeader("Content-Type", runtime.ContentTypeJSON).Body(body).
		Do(ctx).Into(&out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// specFor is the review spec asking whether user may do q.
func specFor(user authenticationv1.UserInfo, q query) authorizationv1.SubjectAccessReviewSpec {
	spec := authorizationv1.SubjectAccessReviewSpec{
		User:   user.Username,
		UID:    user.UID,
		Groups: user.Groups,
	}
	if len(user.Extra) > 0 {
		spec.Extra = make(map[string]authorizationv1.ExtraValue, len(user.Extra))
		for k, v := range user.Extra {
			spec.Extra[k] = authorizationv1.ExtraValue(v)
		}
	}
	if q.url != "" {
		spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: q.url, Verb: q.verb}
		return spec
	}
	spec.ResourceAttributes = &authorizationv1.ResourceAttributes{
		Namespace:   q.namespace,
		Verb:        q.verb,
		Group:       q.group,
		Version:     "*",
		Resource:    q.resource,
		Subresource: q.subresource,
		Name:        q.name,
	}
	return spec
}
