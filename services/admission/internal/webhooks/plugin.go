package webhooks

import (
	"errors"
	"log/slog"

	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/kubeobject"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
	"github.com/kubesplit/kubesplit/services/admission/internal/selector"
)

// NewMutatingPhases builds the MutatingAdmissionWebhook plugin: a mutating
// half only. It is a PhasesConstructor so that the service sees the
// admitter itself (and its CurrentRules) before marking it Mutating.
func NewMutatingPhases(deps plugin.Deps) (mutating, validating admission.Admitter, err error) {
	if deps.Informers == nil || deps.Client == nil {
		return nil, nil, errors.New("MutatingAdmissionWebhook needs an informer factory and a client")
	}
	inf := deps.Informers.Admissionregistration().V1().MutatingWebhookConfigurations()
	d := newDispatcher(deps, newSource(mutatingList(inf.Lister()), inf.Informer().HasSynced))
	return &Mutating{d: d}, nil, nil
}

// NewValidating builds the ValidatingAdmissionWebhook plugin.
func NewValidating(deps plugin.Deps) (admission.Admitter, error) {
	if deps.Informers == nil || deps.Client == nil {
		return nil, errors.New("ValidatingAdmissionWebhook needs an informer factory and a client")
	}
	inf := deps.Informers.Admissionregistration().V1().ValidatingWebhookConfigurations()
	d := newDispatcher(deps, newSource(validatingList(inf.Lister()), inf.Informer().HasSynced))
	return &Validating{d: d}, nil
}

// NoRules are the plugins' static rules: none, since what they publish is
// their CurrentRules.
func NoRules() admission.Rules { return admission.Rules{} }

func newDispatcher(deps plugin.Deps, src *source) *dispatcher {
	ns := deps.Informers.Core().V1().Namespaces()
	log := deps.Log
	if log == nil {
		log = slog.Default()
	}
	return &dispatcher{
		source:      src,
		namespaces:  selector.Namespaces{Lister: ns.Lister(), Client: deps.Client},
		equivalents: kubeobject.NewEquivalents(deps.Client.Discovery()),
		dynamic:     deps.Dynamic,
		synced:      []cache.InformerSynced{src.synced, ns.Informer().HasSynced},
		log:         log,
	}
}
