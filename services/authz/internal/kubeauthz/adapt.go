package kubeauthz

import (
	"context"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/kubeuser"
)

// adapted is a kube authorizer seen as a kubesplit one.
type adapted struct {
	kube authorizer.Authorizer
}

// Adapt returns k answering kubesplit's Authorize. Its answers carry no
// revision: the caller versions the policy k holds. When k is also kube's
// RuleResolver the result is a RuleLister too.
func Adapt(k authorizer.Authorizer) authz.Authorizer {
	a := adapted{kube: k}
	if r, ok := k.(authorizer.RuleResolver); ok {
		return ruleListing{adapted: a, resolver: r}
	}
	return a
}

// Authorize implements authz.Authorizer.
func (a adapted) Authorize(ctx context.Context, attrs authz.Attributes) (authz.Result, error) {
	decision, reason, err := a.kube.Authorize(ctx, Attributes(attrs))
	return authz.Result{Decision: Decision(decision), Reason: reason}, err
}

// Decision is kube's decision as kubesplit's.
func Decision(d authorizer.Decision) authz.Decision {
	switch d {
	case authorizer.DecisionAllow:
		return authz.DecisionAllow
	case authorizer.DecisionDeny:
		return authz.DecisionDeny
	}
	return authz.DecisionNoOpinion
}

// Attributes are a review's attributes as kube's authorizers read them.
func Attributes(a authz.Attributes) authorizer.Attributes {
	return &authorizer.AttributesRecord{
		User:            UserInfo(a),
		Verb:            a.Verb,
		Namespace:       a.Namespace,
		APIGroup:        a.APIGroup,
		APIVersion:      a.APIVersion,
		Resource:        a.Resource,
		Subresource:     a.Subresource,
		Name:            a.Name,
		ResourceRequest: a.ResourceRequest,
		Path:            a.Path,
	}
}

// UserInfo is the review's user as kube's user.Info.
func UserInfo(a authz.Attributes) user.Info { return kubeuser.FromUserInfo(a.User) }
