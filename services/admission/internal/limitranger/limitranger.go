// Package limitranger is the LimitRanger admission plugin, as kube's
// plugin/pkg/admission/limitranger: containers of a new pod get the
// default requests and limits of the namespace's LimitRanges (type
// Container), then pods are checked against their min, max and
// maxLimitRequestRatio (types Container and Pod), and persistent volume
// claims against their min and max storage (type PersistentVolumeClaim).
package limitranger

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "LimitRanger"

// limitRanger holds what the mutating and validating halves share.
type limitRanger struct {
	client kubernetes.Interface
	ranges corelisters.LimitRangeLister
	synced cache.InformerSynced
	live   *liveCache
}

// New is the plugin as one admitter, both halves chained.
func New(deps plugin.Deps) (admission.Admitter, error) {
	return plugin.Joined(NewPhases)(deps)
}

// NewPhases registers a LimitRange informer on deps.Informers and returns
// the defaulting (mutating) and checking (validating) halves.
func NewPhases(deps plugin.Deps) (mutating, validating admission.Admitter, err error) {
	if deps.Client == nil || deps.Informers == nil {
		return nil, nil, fmt.Errorf("%w: %s needs a client and informers", admission.ErrInvalidConfig, Name)
	}
	inf := deps.Informers.Core().V1().LimitRanges()
	l := &limitRanger{client: deps.Client, ranges: inf.Lister(), synced: inf.Informer().HasSynced, live: newLiveCache()}
	return admission.Mutating(admission.AdmitterFunc(l.mutate)), admission.AdmitterFunc(l.validate), nil
}

// applies is kube's SupportsAttributes: pods and claims, not their
// subresources, not pod updates (containers' resources cannot change
// there), and not objects already being deleted.
func applies(a *admission.Attributes) bool {
	if a.SubResource != "" || a.Kind.Group != "" {
		return false
	}
	if a.Operation != admissionv1.Create && a.Operation != admissionv1.Update {
		return false
	}
	switch a.Kind.Kind {
	case "Pod":
		return a.Operation == admissionv1.Create
	case "PersistentVolumeClaim":
		return !beingDeleted(a.OldObject.Raw)
	}
	return false
}

// beingDeleted tells an old object with a deletionTimestamp.
func beingDeleted(old []byte) bool {
	var m struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	ok, err := plugin.Decode(old, &m)
	return ok && err == nil && m.Metadata.DeletionTimestamp != nil
}

// mutate defaults the containers' resources of a new pod.
func (l *limitRanger) mutate(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	if !applies(a) || a.Kind.Kind != "Pod" {
		return admission.Allow(), nil
	}
	pod := &corev1.Pod{}
	if ok, err := plugin.Decode(a.Object.Raw, pod); !ok || err != nil {
		return admission.Allow(), err
	}
	ranges, err := l.limitRanges(ctx, a.Namespace)
	if err != nil {
		return nil, err
	}
	return defaultPod(pod, ranges).Result()
}

// validate checks the final pod or claim against every LimitRange.
func (l *limitRanger) validate(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
	if !applies(a) {
		return admission.Allow(), nil
	}
	ranges, err := l.limitRanges(ctx, a.Namespace)
	if err != nil || len(ranges) == 0 {
		return admission.Allow(), err
	}
	var violation error
	switch a.Kind.Kind {
	case "Pod":
		pod := &corev1.Pod{}
		if _, err := plugin.Decode(a.Object.Raw, pod); err != nil {
			return nil, err
		}
		violation = validatePod(pod, ranges)
	case "PersistentVolumeClaim":
		pvc := &corev1.PersistentVolumeClaim{}
		if _, err := plugin.Decode(a.Object.Raw, pvc); err != nil {
			return nil, err
		}
		violation = validateClaim(pvc, ranges)
	}
	if violation != nil {
		return plugin.Forbidden(a, violation), nil
	}
	return admission.Allow(), nil
}
