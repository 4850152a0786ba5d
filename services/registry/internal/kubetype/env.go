package kubetype

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/kubeuser"
)

// Env is what some of kube's strategies ask beyond the object written:
// whether the writer may read what an admission policy's paramKind or a
// binding's paramRef names, whether it may sign for a signer or report a
// driver's status, and the policy a binding binds. kube builds those
// strategies with its authorizer and listers; the registry builds them
// once, in its resource table, with Authorizer and PolicyGetter below,
// which ask the Env each request carries (WithEnv).
type Env struct {
	// Authorizer decides for the writer; nil refuses everyone but
	// system:masters.
	Authorizer authz.Authorizer
	// ValidatingPolicy and MutatingPolicy read an admission policy by
	// name; nil finds none.
	ValidatingPolicy func(ctx context.Context, name string) (*admissionregistration.ValidatingAdmissionPolicy, error)
	MutatingPolicy   func(ctx context.Context, name string) (*admissionregistration.MutatingAdmissionPolicy, error)
	// Namespace reads a namespace (the DRA strategies read its
	// admin-access label); nil finds none.
	Namespace func(ctx context.Context, name string) (*corev1.Namespace, error)
}

type envKey struct{}

// WithEnv returns ctx carrying env for the strategies.
func WithEnv(ctx context.Context, env Env) context.Context {
	return context.WithValue(ctx, envKey{}, env)
}

func envFrom(ctx context.Context) Env {
	env, _ := ctx.Value(envKey{}).(Env)
	return env
}

// Authorizer is the authorizer kube's strategies are built with. As kube's
// own chain, it allows system:masters first; anyone else is asked of the
// request's Env, and refused when it has none, never allowed unchecked.
var Authorizer authorizer.UnconditionalAuthorizer = envAuthorizer{}

var privileged = authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup)

type envAuthorizer struct{}

func (envAuthorizer) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if d, reason, err := privileged.Authorize(ctx, a); d == authorizer.DecisionAllow || err != nil {
		return d, reason, err
	}
	az := envFrom(ctx).Authorizer
	if az == nil {
		return authorizer.DecisionNoOpinion, "the registry has no authorizer to ask (it was given no --kubeconfig)", nil
	}
	res, err := az.Authorize(ctx, attributes(a))
	if err != nil {
		return authorizer.DecisionNoOpinion, "", err
	}
	switch res.Decision {
	case authz.DecisionAllow:
		return authorizer.DecisionAllow, res.Reason, nil
	case authz.DecisionDeny:
		return authorizer.DecisionDeny, res.Reason, nil
	}
	return authorizer.DecisionNoOpinion, res.Reason, nil
}

// attributes are kube's authorizer attributes as a SubjectAccessReview
// carries them.
func attributes(a authorizer.Attributes) authz.Attributes {
	out := authz.Attributes{Verb: a.GetVerb(), ResourceRequest: a.IsResourceRequest()}
	if u := a.GetUser(); u != nil {
		out.User = kubeuser.ToUserInfo(u)
	}
	if out.ResourceRequest {
		out.Namespace, out.APIGroup, out.APIVersion = a.GetNamespace(), a.GetAPIGroup(), a.GetAPIVersion()
		out.Resource, out.Subresource, out.Name = a.GetResource(), a.GetSubresource(), a.GetName()
	} else {
		out.Path = a.GetPath()
	}
	return out
}

// Namespaces is the namespace client kube's DRA strategies are built
// with: its Get reads through the request's Env (they call nothing else).
var Namespaces corev1client.NamespaceInterface = namespaces{}

type namespaces struct {
	corev1client.NamespaceInterface // nil: kube's strategies call only Get
}

func (namespaces) Get(ctx context.Context, name string, _ metav1.GetOptions) (*corev1.Namespace, error) {
	if get := envFrom(ctx).Namespace; get != nil {
		return get(ctx, name)
	}
	return nil, errors.New("no namespaces to read")
}

// PolicyGetter is the policy getter kube's binding strategies are built
// with: it reads the policy through the request's Env.
var PolicyGetter policyGetter

type policyGetter struct{}

var errNoPolicies = errors.New("no admission policies to read")

func (policyGetter) GetValidatingAdmissionPolicy(ctx context.Context, name string) (*admissionregistration.ValidatingAdmissionPolicy, error) {
	if get := envFrom(ctx).ValidatingPolicy; get != nil {
		return get(ctx, name)
	}
	return nil, errNoPolicies
}

func (policyGetter) GetMutatingAdmissionPolicy(ctx context.Context, name string) (*admissionregistration.MutatingAdmissionPolicy, error) {
	if get := envFrom(ctx).MutatingPolicy; get != nil {
		return get(ctx, name)
	}
	return nil, errNoPolicies
}
