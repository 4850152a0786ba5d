package kubeplugin

import (
	"context"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// reviewAuthorizer is kube's authorizer.Authorizer answered by authz
// through SubjectAccessReviews, for the plugins that check the requester's
// permissions (CertificateApproval's "approve" on the signer, …). An
// unanswered review is an error, which those plugins treat as a refusal.
func reviewAuthorizer(reviews *plugin.Reviews) authorizer.Authorizer {
	return authorizer.AuthorizerFunc(func(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		out, err := reviews.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: reviewSpec(a)})
		if err != nil {
			return authorizer.DecisionNoOpinion, "", err
		}
		switch {
		case out.Status.Allowed:
			return authorizer.DecisionAllow, out.Status.Reason, nil
		case out.Status.Denied:
			return authorizer.DecisionDeny, out.Status.Reason, nil
		}
		return authorizer.DecisionNoOpinion, out.Status.Reason, nil
	})
}

// reviewSpec asks what a does.
func reviewSpec(a authorizer.Attributes) authorizationv1.SubjectAccessReviewSpec {
	spec := authorizationv1.SubjectAccessReviewSpec{}
	if u := a.GetUser(); u != nil {
		spec.User, spec.UID, spec.Groups = u.GetName(), u.GetUID(), u.GetGroups()
		for k, v := range u.GetExtra() {
			if spec.Extra == nil {
				spec.Extra = map[string]authorizationv1.ExtraValue{}
			}
			spec.Extra[k] = v
		}
	}
	if !a.IsResourceRequest() {
		spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: a.GetPath(), Verb: a.GetVerb()}
		return spec
	}
	spec.ResourceAttributes = &authorizationv1.ResourceAttributes{
		Namespace: a.GetNamespace(), Verb: a.GetVerb(), Group: a.GetAPIGroup(), Version: a.GetAPIVersion(),
		Resource: a.GetResource(), Subresource: a.GetSubresource(), Name: a.GetName(),
	}
	return spec
}
