package kubeplugin

import (
	"fmt"

	kubeadmission "k8s.io/apiserver/pkg/admission"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Plugin is one of kube's admission plugins as the service registers it:
// kube's name for it, its package's Register, and the requests each of its
// halves looks at (none: the half is not used), so that the registry asks
// only about those.
type Plugin struct {
	// Name is kube's PluginName, as --enable-admission-plugins takes it.
	Name       string
	register   func(*kubeadmission.Plugins)
	mutating   []admission.Rule
	validating []admission.Rule
}

// NewPhases builds the plugin, once for both halves as kube-apiserver
// does, and returns the halves its rules name: its Admit on the mutating
// path, its Validate on the validating one.
func (p Plugin) NewPhases(deps plugin.Deps) (m, v admission.Admitter, err error) {
	kube, err := initialized(p.Name, p.register, deps)
	if err != nil {
		return nil, nil, err
	}
	if len(p.mutating) > 0 {
		mi, ok := kube.(kubeadmission.MutationInterface)
		if !ok {
			return nil, nil, fmt.Errorf("%s does not mutate, yet has mutating rules", p.Name)
		}
		m = admission.Mutating(mutator{kube: mi})
	}
	if len(p.validating) > 0 {
		vi, ok := kube.(kubeadmission.ValidationInterface)
		if !ok {
			return nil, nil, fmt.Errorf("%s does not validate, yet has validating rules", p.Name)
		}
		v = validator{kube: vi}
	}
	return m, v, nil
}

// Rules are the requests the plugin's halves look at.
func (p Plugin) Rules() admission.Rules {
	return admission.Rules{Mutating: p.mutating, Validating: p.validating}
}
