package webhooks

import (
	"slices"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	admissionregistrationlisters "k8s.io/client-go/listers/admissionregistration/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/kubeobject"
)

// configuration is one webhook configuration object, either kind, as the
// source needs it.
type configuration struct {
	name, resourceVersion string
	uid                   types.UID
	webhooks              []common
}

// source is the webhooks of one kind of configuration, in kube's order
// (configurations by name, webhooks as listed), prepared once per version
// of each configuration.
type source struct {
	list    func() ([]configuration, error)
	synced  cache.InformerSynced
	clients *clients

	mu       sync.Mutex
	prepared map[types.UID]preparedConfig
}

type preparedConfig struct {
	resourceVersion string
	hooks           []*hook
}

func newSource(list func() ([]configuration, error), synced cache.InformerSynced) *source {
	return &source{list: list, synced: synced, clients: newClients(), prepared: map[types.UID]preparedConfig{}}
}

// mutatingList lists the MutatingWebhookConfigurations.
func mutatingList(l admissionregistrationlisters.MutatingWebhookConfigurationLister) func() ([]configuration, error) {
	return listOf(l.List, func(o *admissionregistrationv1.MutatingWebhookConfiguration) []admissionregistrationv1.MutatingWebhook {
		return o.Webhooks
	}, fromMutating)
}

// validatingList lists the ValidatingWebhookConfigurations.
func validatingList(l admissionregistrationlisters.ValidatingWebhookConfigurationLister) func() ([]configuration, error) {
	return listOf(l.List, func(o *admissionregistrationv1.ValidatingWebhookConfiguration) []admissionregistrationv1.ValidatingWebhook {
		return o.Webhooks
	}, fromValidating)
}

// listOf lists configurations of either kind with list, taking each
// one's webhooks and converting them with from.
func listOf[C metav1.Object, W any](list func(labels.Selector) ([]C, error), webhooks func(C) []W, from func(W) common) func() ([]configuration, error) {
	return func() ([]configuration, error) {
		objs, err := list(labels.Everything())
		if err != nil {
			return nil, err
		}
		out := make([]configuration, 0, len(objs))
		for _, o := range objs {
			c := configuration{name: o.GetName(), resourceVersion: o.GetResourceVersion(), uid: o.GetUID()}
			for _, w := range webhooks(o) {
				c.webhooks = append(c.webhooks, from(w))
			}
			out = append(out, c)
		}
		return out, nil
	}
}

// hooks are the configured webhooks now, in the order they run.
func (s *source) hooks() ([]*hook, error) {
	configs, err := s.list()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(configs, func(a, b configuration) int { return strings.Compare(a.name, b.name) })
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*hook
	seen := make(map[types.UID]bool, len(configs))
	for _, c := range configs {
		seen[c.uid] = true
		out = append(out, s.prepare(c)...)
	}
	// Forget deleted configurations.
	for uid := range s.prepared {
		if !seen[uid] {
			delete(s.prepared, uid)
		}
	}
	return out, nil
}

// prepare is c's hooks, prepared again only when c changed.
func (s *source) prepare(c configuration) []*hook {
	if p, ok := s.prepared[c.uid]; ok && c.resourceVersion != "" && p.resourceVersion == c.resourceVersion {
		return p.hooks
	}
	hooks := make([]*hook, 0, len(c.webhooks))
	for _, w := range c.webhooks {
		hooks = append(hooks, newHook(c.name, w, s.clients))
	}
	s.prepared[c.uid] = preparedConfig{resourceVersion: c.resourceVersion, hooks: hooks}
	return hooks
}

// rules are what the registry must ask about for these webhooks: the
// union of their rules, or everything until the configurations are known.
func (s *source) rules(equivalents *kubeobject.Equivalents) []admission.Rule {
	if !s.synced() {
		return []admission.Rule{everything()}
	}
	hooks, err := s.hooks()
	if err != nil {
		return []admission.Rule{everything()}
	}
	out := []admission.Rule{}
	for _, h := range hooks {
		out = append(out, h.publishedRules(equivalents)...)
	}
	return out
}
