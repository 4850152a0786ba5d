package validation

import (
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// MarkCustomResourceDefinitionDeleted is what deleting a CRD sets, as
// kube's CRD storage does: the cleanup finalizer, which holds the CRD until
// the controller has deleted every object of its kind, and the Terminating
// condition.
func MarkCustomResourceDefinitionDeleted(obj *unstructured.Unstructured) {
	finalizers := obj.GetFinalizers()
	has := false
	for _, f := range finalizers {
		has = has || f == apiextensionsv1.CustomResourceCleanupFinalizer
	}
	if !has {
		obj.SetFinalizers(append(finalizers, apiextensionsv1.CustomResourceCleanupFinalizer))
	}
	SetCRDCondition(obj.Object, apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue, Reason: "InstanceDeletionPending",
		Message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
	})
}

// SetCRDCondition sets one condition in a CRD's status, keeping its
// lastTransitionTime when the status does not change.
func SetCRDCondition(obj map[string]any, c apiextensionsv1.CustomResourceDefinitionCondition) {
	status := ensureMap(obj, "status")
	conds, _ := status["conditions"].([]any)
	next := map[string]any{"type": string(c.Type), "status": string(c.Status), "reason": c.Reason, "message": c.Message,
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}
	for i, cur := range conds {
		m, ok := cur.(map[string]any)
		if !ok || m["type"] != string(c.Type) {
			continue
		}
		if m["status"] == string(c.Status) && m["lastTransitionTime"] != nil {
			next["lastTransitionTime"] = m["lastTransitionTime"]
		}
		conds[i] = next
		status["conditions"] = conds
		return
	}
	status["conditions"] = append(conds, next)
}
