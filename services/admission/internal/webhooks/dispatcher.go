package webhooks

import (
	"context"
	"fmt"
	"log/slog"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/kubeobject"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
	"github.com/kubesplit/kubesplit/services/admission/internal/selector"
)

// dispatcher is what both plugins share: their webhooks, the namespaces
// their selectors look at, and the informers to wait for.
type dispatcher struct {
	source     *source
	namespaces selector.Namespaces
	// equivalents are the resources stored as one, which matchPolicy
	// Equivalent matches a request by.
	equivalents *kubeobject.Equivalents
	// dynamic reads CRDs, for custom resources' versions (nil: none).
	dynamic dynamic.Interface
	synced  []cache.InformerSynced
	log     *slog.Logger
}

// prepare waits for the informers and returns the webhooks to consider
// for a: none for requests about admission configurations.
func (d *dispatcher) prepare(ctx context.Context, a *admission.Attributes) ([]*hook, error) {
	if err := plugin.WaitSynced(ctx, d.synced...); err != nil {
		return nil, err
	}
	if isExempt(a) {
		return nil, nil
	}
	return d.source.hooks()
}

// rulesFor is the CurrentRules of the plugin of phase p: its webhooks'
// rules in that phase, none in the other.
func (d *dispatcher) rulesFor(p admission.Phase) admission.Rules {
	rules := d.source.rules(d.equivalents)
	if p == admission.PhaseMutating {
		return admission.Rules{Mutating: rules, Validating: []admission.Rule{}}
	}
	return admission.Rules{Mutating: []admission.Rule{}, Validating: rules}
}

// summary accumulates the answers of the webhooks asked, as kube does:
// every webhook's warnings and audit annotations, allowed or not.
type summary struct {
	admission.Result
}

func newSummary() *summary { return &summary{Result: admission.Result{Allowed: true}} }

func (s *summary) add(res *admission.Result) {
	s.Warnings = append(s.Warnings, res.Warnings...)
	for k, v := range res.AuditAnnotations {
		s.annotate(k, v)
	}
}

func (s *summary) annotate(k, v string) {
	if s.AuditAnnotations == nil {
		s.AuditAnnotations = map[string]string{}
	}
	if _, ok := s.AuditAnnotations[k]; !ok {
		s.AuditAnnotations[k] = v
	}
}

// deny is the denial with status, carrying what was gathered.
func (s *summary) deny(status *metav1.Status) *admission.Result {
	out := s.Result
	out.Allowed, out.Patch, out.Status = false, nil, status
	return &out
}

// failedOpen records a failure the failure policy ignored, under kube's
// audit annotation for it.
func (s *summary) failedOpen(phase string, round, index int, h *hook, err error, log *slog.Logger) {
	log.Warn("failed calling webhook, failing open", "webhook", h.name, "err", err)
	s.annotate(fmt.Sprintf("failed-open.%s.webhook.admission.k8s.io/round_%d_index_%d", phase, round, index), h.name)
}
