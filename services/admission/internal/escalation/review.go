package escalation

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// reviewer asks authz, through the API, whether a user may do something.
type reviewer struct {
	reviews *plugin.Reviews
}

// newReviewer asks through c.
func newReviewer(c kubernetes.Interface) *reviewer {
	return &reviewer{reviews: plugin.NewReviews(c)}
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
	out, err := r.reviews.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: specFor(user, q)})
	if err != nil {
		return verdict{}, fmt.Errorf("escalation: SubjectAccessReview %s: %w", q, err)
	}
	return verdict{allowed: out.Status.Allowed, evaluationError: out.Status.EvaluationError}, nil
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
