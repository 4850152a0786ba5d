package kubeauthz

import (
	"context"
	"errors"
	"reflect"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/kubesplit/kubesplit/pkg/authz"
)

// TestAdaptPassesEverything: kube's authorizer sees every attribute of the
// review, and its decision, reason and error come back.
func TestAdaptPassesEverything(t *testing.T) {
	a := authz.Attributes{
		User: authenticationv1.UserInfo{Username: "bob", UID: "u1", Groups: []string{"devs"},
			Extra: map[string]authenticationv1.ExtraValue{"scopes": {"a", "b"}}},
		Verb: "get", Namespace: "ns", APIGroup: "apps", APIVersion: "v1", Resource: "deployments",
		Subresource: "scale", Name: "web", ResourceRequest: true,
	}
	var seen authorizer.Attributes
	failed := errors.New("partly evaluated")
	k := authorizer.AuthorizerFunc(func(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
		seen = attrs
		return authorizer.DecisionDeny, "because", failed
	})
	res, err := Adapt(k).Authorize(context.Background(), a)
	if res.Decision != authz.DecisionDeny || res.Reason != "because" || !errors.Is(err, failed) {
		t.Errorf("answer = %+v, %v", res, err)
	}
	want := &user.DefaultInfo{Name: "bob", UID: "u1", Groups: []string{"devs"}, Extra: map[string][]string{"scopes": {"a", "b"}}}
	if !reflect.DeepEqual(seen.GetUser(), want) {
		t.Errorf("user = %#v, want %#v", seen.GetUser(), want)
	}
	got := []string{seen.GetVerb(), seen.GetNamespace(), seen.GetAPIGroup(), seen.GetAPIVersion(), seen.GetResource(), seen.GetSubresource(), seen.GetName()}
	if !reflect.DeepEqual(got, []string{"get", "ns", "apps", "v1", "deployments", "scale", "web"}) || !seen.IsResourceRequest() {
		t.Errorf("attributes = %v (resource request %v)", got, seen.IsResourceRequest())
	}
}

func TestDecision(t *testing.T) {
	for kube, want := range map[authorizer.Decision]authz.Decision{
		authorizer.DecisionAllow: authz.DecisionAllow, authorizer.DecisionDeny: authz.DecisionDeny,
		authorizer.DecisionNoOpinion: authz.DecisionNoOpinion,
	} {
		if got := Decision(kube); got != want {
			t.Errorf("Decision(%v) = %v, want %v", kube, got, want)
		}
	}
}
