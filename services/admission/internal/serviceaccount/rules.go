package serviceaccount

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Rules are the requests podCreate lets through, in both phases: new pods.
func Rules() admission.Rules {
	podCreate := plugin.Rule("", []string{"pods"}, admissionregistrationv1.Create)
	return admission.Rules{Mutating: []admission.Rule{podCreate}, Validating: []admission.Rule{podCreate}}
}
