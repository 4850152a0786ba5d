package plugin

import (
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// Decode reads an admitted object's JSON into out; false when there is
// none (the new object of a DELETE, the old one of a CREATE).
func Decode(raw []byte, out any) (bool, error) {
	if len(raw) == 0 {
		return false, nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return false, fmt.Errorf("decoding the admitted object: %w", err)
	}
	return true, nil
}

// objectName is the name kube's admission.NewForbidden puts in a message:
// the object's name, its generateName before one is generated, or
// "Unknown".
func objectName(a *admission.Attributes) string {
	var m struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if ok, err := Decode(a.Object.Raw, &m); ok && err == nil {
		if m.Metadata.Name != "" {
			return m.Metadata.Name
		}
		if m.Metadata.GenerateName != "" {
			return m.Metadata.GenerateName
		}
	}
	if a.Name != "" {
		return a.Name
	}
	return "Unknown"
}

// Forbidden is kube's admission.NewForbidden as a denial:
// `<resource> "<name>" is forbidden: <err>`, 403 Forbidden.
func Forbidden(a *admission.Attributes, err error) *admission.Result {
	gr := schema.GroupResource{Group: a.Resource.Group, Resource: a.Resource.Resource}
	return StatusResult(apierrors.NewForbidden(gr, objectName(a), err))
}

// StatusResult is the denial carrying an API error's Status.
func StatusResult(err *apierrors.StatusError) *admission.Result {
	s := err.ErrStatus
	return &admission.Result{Status: &s}
}

// IsResource reports whether a is about group/resource (any version), the
// way kube's plugins match resources.
func IsResource(a *admission.Attributes, group, resource string) bool {
	return a.Resource.Group == group && a.Resource.Resource == resource
}
