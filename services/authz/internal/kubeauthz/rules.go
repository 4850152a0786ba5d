package kubeauthz

import (
	"context"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/kubesplit/kubesplit/pkg/kubeuser"
)

// Rules is what a kube authorizer says a user may do in a namespace, for
// SelfSubjectRulesReviews; incomplete when it may allow more than it
// lists, or could not list at all.
type Rules struct {
	Resource    []authorizationv1.ResourceRule
	NonResource []authorizationv1.NonResourceRule
	Incomplete  bool
}

// RuleLister is an adapted authorizer that can list its rules: one kube's
// authorizer is also a RuleResolver (Node, ABAC).
type RuleLister interface {
	RulesFor(ctx context.Context, user authenticationv1.UserInfo, namespace string) Rules
}

// ruleListing is an adapted authorizer with kube's rule resolver.
type ruleListing struct {
	adapted
	resolver authorizer.RuleResolver
}

// RulesFor lists the resolver's rules as SelfSubjectRulesReview's.
func (r ruleListing) RulesFor(ctx context.Context, u authenticationv1.UserInfo, namespace string) Rules {
	res, nonRes, incomplete, err := r.resolver.RulesFor(ctx, kubeuser.FromUserInfo(u), namespace)
	out := Rules{Incomplete: incomplete || err != nil}
	for _, rule := range res {
		out.Resource = append(out.Resource, authorizationv1.ResourceRule{
			Verbs: rule.GetVerbs(), APIGroups: rule.GetAPIGroups(),
			Resources: rule.GetResources(), ResourceNames: rule.GetResourceNames(),
		})
	}
	for _, rule := range nonRes {
		out.NonResource = append(out.NonResource, authorizationv1.NonResourceRule{
			Verbs: rule.GetVerbs(), NonResourceURLs: rule.GetNonResourceURLs(),
		})
	}
	return out
}
