package handler

import (
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	podutil "k8s.io/kubernetes/pkg/api/v1/pod"
	"k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/validation"
	"k8s.io/kubernetes/pkg/features"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// bind assigns a pod to a node, as a scheduler does: a core/v1 Binding
// posted to pods/<name>/binding, or to bindings naming the pod. Like kube,
// it writes the pod directly, not through the pod's strategy.
func (q *request) bind() error {
	body, err := readBody(q.r)
	if err != nil {
		return err
	}
	b := &corev1.Binding{}
	if _, _, err := resource.Codecs.UniversalDeserializer().Decode(body, nil, b); err != nil {
		return apierrors.NewBadRequest("the body is not a valid Binding: " + err.Error())
	}
	name := q.info.Name
	if q.info.Subresource == "" {
		name = b.Name // POST …/bindings names the pod in the Binding
	} else if b.Name != name {
		return apierrors.NewBadRequest("name in URL does not match name in Binding object")
	}
	if err := validBinding(b); err != nil {
		return err
	}
	pods, ok := q.h.storeOf(metav1.GroupResource{Resource: "pods"})
	if !ok {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, name)
	}
	opts, err := q.writeQuery()
	if err != nil {
		return err
	}
	if err := q.admitAction(corev1.SchemeGroupVersion.WithKind("Binding"), name, b, opts.dryRun); err != nil {
		return err
	}
	_, err = pods.Update(q.r.Context(), q.info.Namespace, name, func(cur *storage.Object) (*unstructured.Unstructured, error) {
		return assign(cur.Decode(), b, q.h.now())
	}, opts.dryRun)
	if err != nil {
		return err
	}
	q.written = true
	return writeTyped(q.w, http.StatusCreated, mediaJSON, &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess})
}

// validBinding is kube's ValidatePodBinding, answered as 422.
func validBinding(b *corev1.Binding) error {
	internal := &core.Binding{}
	if err := legacyscheme.Scheme.Convert(b, internal, nil); err != nil {
		return apierrors.NewBadRequest("the body is not a valid Binding: " + err.Error())
	}
	if errs := validation.ValidatePodBinding(internal); len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Binding"}, b.Name, errs)
	}
	return nil
}

// assign is kube's binding of a pod: refused (409) when the pod is being
// deleted, already bound or gated; otherwise nodeName, the Binding's
// annotations (and labels, with PodTopologyLabelsAdmission) and the
// PodScheduled condition.
func assign(live *unstructured.Unstructured, b *corev1.Binding, now metav1.Time) (*unstructured.Unstructured, error) {
	pod, err := typedPod(live)
	if err != nil {
		return nil, err
	}
	if err := preconditionsOf(b, pod); err != nil {
		return nil, err
	}
	conflict := func(format string, args ...any) error {
		return apierrors.NewConflict(schema.GroupResource{Resource: "pods/binding"}, pod.Name, fmt.Errorf(format, args...))
	}
	switch {
	case pod.DeletionTimestamp != nil:
		return nil, conflict("pod %s is being deleted, cannot be assigned to a host", pod.Name)
	case pod.Spec.NodeName != "":
		return nil, conflict("pod %v is already assigned to node %q", pod.Name, pod.Spec.NodeName)
	case len(pod.Spec.SchedulingGates) != 0:
		return nil, conflict("pod %v has non-empty .spec.schedulingGates", pod.Name)
	}
	pod.Spec.NodeName = b.Target.Name
	if utilfeature.DefaultFeatureGate.Enabled(features.ClearingNominatedNodeNameAfterBinding) {
		pod.Status.NominatedNodeName = ""
	}
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	for k, v := range b.Annotations {
		pod.Annotations[k] = v
	}
	if utilfeature.DefaultFeatureGate.Enabled(features.PodTopologyLabelsAdmission) && len(b.Labels) > 0 {
		if pod.Labels == nil {
			pod.Labels = map[string]string{}
		}
		for k, v := range b.Labels {
			pod.Labels[k] = v
		}
	}
	podutil.UpdatePodCondition(&pod.Status, &corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now})
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// preconditionsOf checks the uid and resourceVersion a Binding may name.
func preconditionsOf(b *corev1.Binding, pod *corev1.Pod) error {
	if b.UID != "" && b.UID != pod.UID {
		return apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, pod.Name,
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", b.UID, pod.UID))
	}
	if b.ResourceVersion != "" && b.ResourceVersion != pod.ResourceVersion {
		return apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, pod.Name,
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	return nil
}
