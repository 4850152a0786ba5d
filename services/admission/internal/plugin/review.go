package plugin

import (
	"context"
	"encoding/json"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	authorizationclient "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
)

// Reviews asks authz, through the API, whether a user may do something:
// it creates SubjectAccessReviews, for plugins whose decision depends on
// the requester's permissions.
type Reviews struct {
	// client is the authorization group's REST client. Reviews are posted
	// through it as JSON rather than with the typed client: client-go sends
	// built-in types as protobuf by default, and the SubjectAccessReview
	// webhook (pkg/authz, and most third-party ones) reads only JSON.
	client rest.Interface
	// typed is used only when there is no REST client (a fake clientset in
	// another package's tests).
	typed authorizationclient.SubjectAccessReviewInterface
}

// NewReviews asks through c.
func NewReviews(c kubernetes.Interface) *Reviews {
	r := &Reviews{client: c.AuthorizationV1().RESTClient(), typed: c.AuthorizationV1().SubjectAccessReviews()}
	if rc, ok := r.client.(*rest.RESTClient); r.client == nil || (ok && rc == nil) {
		r.client = nil
	}
	return r
}

// Create posts sar and returns authz's answer. An error means authz (or
// the API in front of it) could not be asked: the caller must not allow.
func (r *Reviews) Create(ctx context.Context, sar *authorizationv1.SubjectAccessReview) (*authorizationv1.SubjectAccessReview, error) {
	sar.TypeMeta = metav1.TypeMeta{APIVersion: authorizationv1.SchemeGroupVersion.String(), Kind: "SubjectAccessReview"}
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
