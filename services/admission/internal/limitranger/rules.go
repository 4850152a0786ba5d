package limitranger

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Rules are the requests applies lets through: new pods are defaulted and
// checked; claims are checked when created or updated. Pod updates are
// not, since containers' resources cannot change there.
func Rules() admission.Rules {
	podCreate := plugin.Rule("", []string{"pods"}, admissionregistrationv1.Create)
	return admission.Rules{
		Mutating: []admission.Rule{podCreate},
		Validating: []admission.Rule{
			podCreate,
			plugin.Rule("", []string{"persistentvolumeclaims"}, admissionregistrationv1.Create, admissionregistrationv1.Update),
		},
	}
}
