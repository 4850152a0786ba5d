package escalation

import (
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// onlyGCFields reports whether an update changes nothing but what the
// garbage collector and finalizing controllers change (owner references
// and finalizers), as kube's IsOnlyMutatingGCFields does: such an update
// grants nothing, and a controller without the role's permissions must be
// able to make it. Beyond kube it also ignores the fields the server
// maintains (resourceVersion, managedFields), which grant nothing either and
// would otherwise defeat the comparison whenever field management records
// the change.
func onlyGCFields(obj, old runtime.Object) bool {
	copied := obj.DeepCopyObject()
	c, err := meta.Accessor(copied)
	if err != nil {
		return false
	}
	o, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	c.SetOwnerReferences(o.GetOwnerReferences())
	c.SetFinalizers(o.GetFinalizers())
	c.SetSelfLink(o.GetSelfLink())
	c.SetResourceVersion(o.GetResourceVersion())
	c.SetManagedFields(o.GetManagedFields())
	return equality.Semantic.DeepEqual(copied, old)
}
