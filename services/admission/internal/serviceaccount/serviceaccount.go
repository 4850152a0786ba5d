// Package serviceaccount is the ServiceAccount admission plugin, as kube's
// plugin/pkg/admission/serviceaccount: a pod created without a service
// account runs as "default", and a pod may only name a service account
// that exists. Mirror pods (created by a kubelet from a static manifest)
// may not reference service accounts or secrets at all. Like kube, it
// mounts the account's credentials (a projected kube-api-access-* volume)
// in every container unless automounting is turned off.
package serviceaccount

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "ServiceAccount"

// DefaultServiceAccountName is the service account a pod gets when it
// names none.
const DefaultServiceAccountName = "default"

// saPlugin holds what the mutating and validating halves share.
type saPlugin struct {
	client   kubernetes.Interface
	accounts corelisters.ServiceAccountLister
	synced   cache.InformerSynced
}

// New is the plugin as one admitter, both halves chained.
func New(deps plugin.Deps) (admission.Admitter, error) {
	return plugin.Joined(NewPhases)(deps)
}

// NewPhases registers a ServiceAccount informer on deps.Informers and
// returns the plugin's two halves as kube runs them: the mutating one
// defaults the service account, the validating one checks the final pod.
func NewPhases(deps plugin.Deps) (mutating, validating admission.Admitter, err error) {
	if deps.Client == nil || deps.Informers == nil {
		return nil, nil, fmt.Errorf("%w: %s needs a client and informers", admission.ErrInvalidConfig, Name)
	}
	inf := deps.Informers.Core().V1().ServiceAccounts()
	p := &saPlugin{client: deps.Client, accounts: inf.Lister(), synced: inf.Informer().HasSynced}
	return admission.Mutating(admission.AdmitterFunc(p.mutate)), admission.AdmitterFunc(p.validate), nil
}

// podCreate decodes the pod a creates, or nil when a is not a pod create
// (other resources, subresources, updates) and the plugin has nothing to
// say.
func podCreate(a *admission.Attributes) (*corev1.Pod, error) {
	if !plugin.IsResource(a, "", "pods") || a.SubResource != "" || a.Operation != admissionv1.Create {
		return nil, nil
	}
	pod := &corev1.Pod{}
	if ok, err := plugin.Decode(a.Object.Raw, pod); !ok || err != nil {
		return nil, err
	}
	return pod, nil
}

// mutate names the default service account when the pod names none,
// mounts its token, and copies its image pull secrets to a pod that has
// none.
func (p *saPlugin) mutate(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	pod, err := podCreate(a)
	if pod == nil || err != nil {
		return admission.Allow(), err
	}
	if isMirrorPod(pod) {
		// Kube leaves a mirror pod's spec alone (the kubelet would
		// delete it on a mismatch); validate refuses what it must not use.
		return admission.Allow(), nil
	}
	var patch plugin.Patch
	name := pod.Spec.ServiceAccountName
	if name == "" {
		name = DefaultServiceAccountName
		patch.Add("/spec/serviceAccountName", name)
	}
	sa, denial, err := p.lookup(ctx, a, name)
	if denial != nil || err != nil {
		return denial, err
	}
	if shouldAutomount(sa, pod) {
		mountToken(&patch, pod)
	}
	if len(pod.Spec.ImagePullSecrets) == 0 && len(sa.ImagePullSecrets) > 0 {
		secrets := make([]corev1.LocalObjectReference, len(sa.ImagePullSecrets))
		for i, s := range sa.ImagePullSecrets {
			secrets[i].Name = s.Name
		}
		patch.Add("/spec/imagePullSecrets", secrets)
	}
	return patch.Result()
}

// validate checks the pod that will be stored: mirror pods reference no
// account or secret, others name an account that exists.
func (p *saPlugin) validate(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	pod, err := podCreate(a)
	if pod == nil || err != nil {
		return admission.Allow(), err
	}
	if isMirrorPod(pod) {
		if err := mirrorPodViolation(pod); err != nil {
			return plugin.Forbidden(a, err), nil
		}
		return admission.Allow(), nil
	}
	if pod.Spec.ServiceAccountName == "" {
		return plugin.Forbidden(a, fmt.Errorf("no service account specified for pod %s/%s", a.Namespace, pod.Name)), nil
	}
	_, denial, err := p.lookup(ctx, a, pod.Spec.ServiceAccountName)
	if denial != nil || err != nil {
		return denial, err
	}
	return admission.Allow(), nil
}

// lookup finds the account, or kube's denial when it does not exist.
func (p *saPlugin) lookup(ctx context.Context, a *admission.Attributes, name string) (*corev1.ServiceAccount, *admission.Result, error) {
	sa, err := p.get(ctx, a.Namespace, name)
	if apierrors.IsNotFound(err) {
		return nil, plugin.Forbidden(a, fmt.Errorf("error looking up service account %s/%s: %w", a.Namespace, name, err)), nil
	}
	return sa, nil, err
}
