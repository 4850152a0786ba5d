package handler

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"

	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// maxDisruptedPods is how many evictions the PDB controller may not yet
// have confirmed before a budget refuses more (kube's MaxDisruptedPodSize).
const maxDisruptedPods = 2000

// evict deletes a pod unless that would break its PodDisruptionBudget:
// pods/<name>/eviction, what kubectl drain and the descheduler call. It
// follows kube's EvictionREST: a pod that is not running is deleted at
// once; a running one only when its one budget allows a disruption, which
// is taken from the budget first; otherwise 429.
func (q *request) evict() error {
	ev, err := q.readEviction()
	if err != nil {
		return err
	}
	dryRun := ev.DeleteOptions != nil && len(ev.DeleteOptions.DryRun) > 0
	if err := q.admitAction(policyv1.SchemeGroupVersion.WithKind("Eviction"), ev.Name, ev, dryRun); err != nil {
		return err
	}
	opts := ev.DeleteOptions
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	cur, err := q.store.Get(q.r.Context(), q.info.Namespace, q.info.Name, storage.ReadOptions{})
	if err != nil {
		return err
	}
	pod, err := typedPod(cur.Decode())
	if err != nil {
		return err
	}
	if !canIgnoreBudget(pod) {
		pinned, err := q.takeDisruption(pod, len(opts.DryRun) > 0)
		if err != nil {
			return err
		}
		if pinned {
			// The pod was let go as unhealthy: it must still be so.
			opts = opts.DeepCopy()
			if opts.Preconditions == nil {
				opts.Preconditions = &metav1.Preconditions{}
			}
			if opts.Preconditions.ResourceVersion == nil {
				rv := pod.ResourceVersion
				opts.Preconditions.ResourceVersion = &rv
			}
		}
	}
	if err := q.deleteEvicted(opts); err != nil {
		return err
	}
	q.written = true
	return writeTyped(q.w, http.StatusCreated, mediaJSON, &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess})
}

// readEviction decodes a policy/v1 (or v1beta1: the same fields) Eviction
// naming the pod of the URL.
func (q *request) readEviction() (*policyv1.Eviction, error) {
	body, err := readBody(q.r)
	if err != nil {
		return nil, err
	}
	ev, err := decodeEviction(contentType(q.r), body)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the body is not a valid Eviction: %v", err))
	}
	if ev.Name != q.info.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Eviction object")
	}
	if o := ev.DeleteOptions; o != nil && o.IgnoreStoreReadErrorWithClusterBreakingPotential != nil && *o.IgnoreStoreReadErrorWithClusterBreakingPotential {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: "policy", Kind: "Eviction"}, ev.Name, field.ErrorList{
			field.Invalid(field.NewPath("deleteOptions", "ignoreStoreReadErrorWithClusterBreakingPotential"), true,
				"can not be set for pod eviction, try after removing the option")})
	}
	return ev, nil
}

// decodeEviction reads an Eviction, of policy/v1 or v1beta1 (the same
// fields), as JSON or, as client-go's typed clients send it when they
// speak protobuf (kube's e2e tests do), as protobuf.
func decodeEviction(media string, body []byte) (*policyv1.Eviction, error) {
	if media == mediaProtobuf {
		obj, gvk, err := protobufSerializer.Decode(body, nil, nil)
		if err != nil {
			return nil, err
		}
		if gvk.Group != policyv1.GroupName || gvk.Kind != "Eviction" {
			return nil, fmt.Errorf("a %s, not an Eviction", gvk)
		}
		if body, err = json.Marshal(obj); err != nil {
			return nil, err
		}
	}
	ev := &policyv1.Eviction{}
	if err := json.Unmarshal(body, ev); err != nil {
		return nil, err
	}
	if ev.Kind != "Eviction" && media != mediaProtobuf { // protobuf's kind is in its envelope
		return nil, fmt.Errorf("kind %q, not Eviction", ev.Kind)
	}
	return ev, nil
}

// canIgnoreBudget: a pod that is not running, or already going, has
// disrupted nothing a budget protects.
func canIgnoreBudget(pod *corev1.Pod) bool {
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed, corev1.PodPending:
		return true
	}
	return pod.DeletionTimestamp != nil
}

// takeDisruption checks the pod's one budget and takes a disruption from
// it. pinned reports that the pod goes as unhealthy without taking one,
// so the delete must find it unchanged.
func (q *request) takeDisruption(pod *corev1.Pod, dryRun bool) (pinned bool, err error) {
	pdbs, err := q.budgetsOf(pod)
	if err != nil || len(pdbs) == 0 {
		return false, err
	}
	if len(pdbs) > 1 {
		return false, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
			Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}}
	}
	pdb := pdbs[0]
	if !podutil.IsPodReady(pod) {
		p := pdb.Spec.UnhealthyPodEvictionPolicy
		if (p != nil && *p == policyv1.AlwaysAllow) ||
			(pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0) {
			return true, nil
		}
	}
	store, _ := q.h.storeOf(metav1.GroupResource{Group: "policy", Resource: "poddisruptionbudgets"})
	_, err = store.Update(q.r.Context(), pdb.Namespace, pdb.Name, func(cur *storage.Object) (*unstructured.Unstructured, error) {
		live := &policyv1.PodDisruptionBudget{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(cur.Decode().Object, live); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		if err := takeFrom(live, pod.Name, q.h.now()); err != nil {
			return nil, err
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(live)
		return &unstructured.Unstructured{Object: m}, err
	}, dryRun)
	return false, err
}

// budgetsOf lists the budgets in the pod's namespace that select it.
func (q *request) budgetsOf(pod *corev1.Pod) ([]*policyv1.PodDisruptionBudget, error) {
	store, ok := q.h.storeOf(metav1.GroupResource{Group: "policy", Resource: "poddisruptionbudgets"})
	if !ok {
		return nil, nil
	}
	res, err := store.List(q.r.Context(), pod.Namespace, storage.ListOptions{})
	if err != nil {
		return nil, err
	}
	defer res.Release()
	var out []*policyv1.PodDisruptionBudget
	for _, item := range res.Items {
		pdb := &policyv1.PodDisruptionBudget{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(item.Decode().Object, pdb); err != nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue // an invalid selector matches nothing
		}
		out = append(out, pdb)
	}
	return out, nil
}

// takeFrom is kube's checkAndDecrement: 429 while the budget is stale or
// spent, else one disruption fewer and the pod recorded as disrupted.
func takeFrom(pdb *policyv1.PodDisruptionBudget, podName string, now metav1.Time) error {
	forbidden := func(why, msg string) error {
		err := apierrors.NewForbidden(schema.GroupResource{Group: "policy", Resource: "poddisruptionbudget"}, pdb.Name, errors.New(why))
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: msg})
		return err
	}
	switch {
	case pdb.Status.ObservedGeneration < pdb.Generation:
		return tooManyEvictions(fmt.Sprintf("The disruption budget %s is still being processed by the server.", pdb.Name))
	case pdb.Status.DisruptionsAllowed < 0:
		return forbidden("pdb disruptions allowed is negative",
			fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: pdb disruptions allowed is negative", pdb.Name))
	case len(pdb.Status.DisruptedPods) > maxDisruptedPods:
		return forbidden("DisruptedPods map too big - too many evictions not confirmed by PDB controller",
			fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: too many pending evictions not confirmed by PDB controller", pdb.Name))
	case pdb.Status.DisruptionsAllowed == 0:
		return tooManyEvictions(spentMessage(pdb))
	}
	pdb.Status.DisruptionsAllowed--
	if pdb.Status.DisruptionsAllowed == 0 {
		apimeta.SetStatusCondition(&pdb.Status.Conditions, metav1.Condition{Type: policyv1.DisruptionAllowedCondition,
			Status: metav1.ConditionFalse, Reason: policyv1.InsufficientPodsReason, ObservedGeneration: pdb.Status.ObservedGeneration})
	}
	if pdb.Status.DisruptedPods == nil {
		pdb.Status.DisruptedPods = map[string]metav1.Time{}
	}
	pdb.Status.DisruptedPods[podName] = now
	return nil
}

// spentMessage says why a budget with no disruptions left refuses, as kube.
func spentMessage(pdb *policyv1.PodDisruptionBudget) string {
	c := apimeta.FindStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition)
	failed := c != nil && c.Status == metav1.ConditionFalse && c.Message != ""
	switch {
	case failed && c.Reason == policyv1.SyncFailedReason:
		return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently because it failed sync: %s", pdb.Name, c.Message)
	case pdb.Status.CurrentHealthy <= pdb.Status.DesiredHealthy:
		return fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", pdb.Name, pdb.Status.DesiredHealthy, pdb.Status.CurrentHealthy)
	case failed:
		return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently (%s): %s", pdb.Name, c.Reason, c.Message)
	}
	return fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", pdb.Name)
}

// tooManyEvictions is the 429 a client retries later.
func tooManyEvictions(cause string) error {
	err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: cause})
	return err
}

// deleteEvicted marks the pod a disruption target, as kube does before
// deleting it, then deletes it as a DELETE with opts would.
func (q *request) deleteEvicted(opts *metav1.DeleteOptions) error {
	ctx := q.r.Context()
	dry := len(opts.DryRun) > 0
	cur, err := q.store.Update(ctx, q.info.Namespace, q.info.Name, func(cur *storage.Object) (*unstructured.Unstructured, error) {
		live := cur.Decode()
		if err := q.deletePreconditions(opts.Preconditions, live); err != nil {
			return nil, err
		}
		pod, err := typedPod(live)
		if err != nil {
			return nil, err
		}
		podutil.UpdatePodCondition(&pod.Status, &corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
			Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting", LastTransitionTime: q.h.now()})
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
		return &unstructured.Unstructured{Object: m}, err
	}, dry)
	if err != nil {
		return err
	}
	if opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil {
		// The condition just written is this eviction's own change.
		opts = opts.DeepCopy()
		rv := cur.ResourceVersion()
		opts.Preconditions.ResourceVersion = &rv
	}
	_, _, err = q.deleteOne(cur, opts)
	return err
}

// typedPod is obj as a core/v1 Pod.
func typedPod(obj *unstructured.Unstructured) (*corev1.Pod, error) {
	pod := &corev1.Pod{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, pod); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return pod, nil
}
