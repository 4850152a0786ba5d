package authz

import (
	"context"
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/services/authz/internal/kubeauthz"
)

// ruleSet is what a mode says a user may do in a namespace.
type ruleSet struct {
	resource    []authorizationv1.ResourceRule
	nonResource []authorizationv1.NonResourceRule
	// incomplete: the mode may allow more than it listed.
	incomplete bool
}

// rulesFunc lists a mode's rules for a user in a namespace. A mode
// without one (Webhook) cannot list what it allows.
type rulesFunc func(user authenticationv1.UserInfo, namespace string) ruleSet

// unionRules lists the rules of every mode of a chain, as kube's rule
// resolver does: a mode that cannot list its rules makes the answer
// incomplete, and with none that can (no RBAC) nothing is listed at all.
func unionRules(modes []rulesFunc) rulesFunc {
	return func(user authenticationv1.UserInfo, namespace string) ruleSet {
		out := ruleSet{incomplete: len(modes) == 0}
		for _, f := range modes {
			if f == nil {
				out.incomplete = true
				continue
			}
			s := f(user, namespace)
			out.resource = append(out.resource, s.resource...)
			out.nonResource = append(out.nonResource, s.nonResource...)
			out.incomplete = out.incomplete || s.incomplete
		}
		return out
	}
}

// listedRules is the rule lister of an engine adapted from kube's (Node,
// ABAC, a configured webhook); nil when it has none.
func listedRules(a authz.Authorizer) rulesFunc {
	l, ok := a.(kubeauthz.RuleLister)
	if !ok {
		return nil
	}
	return func(user authenticationv1.UserInfo, namespace string) ruleSet {
		r := l.RulesFor(context.Background(), user, namespace)
		return ruleSet{resource: r.Resource, nonResource: r.NonResource, incomplete: r.Incomplete}
	}
}

// allRules is what AlwaysAllow allows: everything.
func allRules(authenticationv1.UserInfo, string) ruleSet {
	return ruleSet{
		resource: []authorizationv1.ResourceRule{{
			Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"},
		}},
		nonResource: []authorizationv1.NonResourceRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
	}
}

// noRules is what AlwaysDeny allows: nothing, and that is the whole list.
func noRules(authenticationv1.UserInfo, string) ruleSet { return ruleSet{} }

// newSelfSubjectRulesReviewHandler answers SelfSubjectRulesReviews
// (kubectl auth can-i --list) for the caller the aggregator asserted.
func newSelfSubjectRulesReviewHandler(rules rulesFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok := callerOf(w, r)
		if !ok {
			return
		}
		var review authorizationv1.SelfSubjectRulesReview
		gvk := authorizationv1.SchemeGroupVersion.WithKind("SelfSubjectRulesReview")
		if !decodeObject(w, r, gvk, &review) {
			return
		}
		// Kube refuses a review without a namespace: cluster-wide rules
		// alone would read as all the user may do.
		if review.Spec.Namespace == "" {
			apierror.Write(w, apierrors.NewInvalid(gvk.GroupKind(), "", field.ErrorList{
				field.Required(field.NewPath("spec", "namespace"), "a namespace is required")}))
			return
		}
		s := rules(user, review.Spec.Namespace)
		review.Status = authorizationv1.SubjectRulesReviewStatus{
			ResourceRules:    s.resource,
			NonResourceRules: s.nonResource,
			Incomplete:       s.incomplete,
		}
		// The fields are required in the API: an empty list, never null.
		if review.Status.ResourceRules == nil {
			review.Status.ResourceRules = []authorizationv1.ResourceRule{}
		}
		if review.Status.NonResourceRules == nil {
			review.Status.NonResourceRules = []authorizationv1.NonResourceRule{}
		}
		writeObject(w, r, http.StatusCreated, authorizationv1.SchemeGroupVersion, &review)
	})
}
