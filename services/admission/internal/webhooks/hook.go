package webhooks

import (
	"errors"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// defaultTimeout is kube's default timeoutSeconds.
const defaultTimeout = 10 * time.Second

// hook is one webhook of a configuration, with its defaults filled in and
// its selectors, conditions and client prepared once per version of the
// configuration rather than on every request.
type hook struct {
	// name is the webhook's name; configuration the name of the object
	// declaring it, for audit annotations.
	name, configuration string
	// rules are the webhook's rules; anyVersion the same in any version,
	// which tells whether a custom resource's CRD is worth reading for
	// its other versions (see customInvocation).
	rules, anyVersion   []admission.Rule
	exact               bool // matchPolicy Exact
	namespaceSelector   labels.Selector
	objectSelector      labels.Selector
	selectorErr         error // a selector that does not parse
	conditions          *conditions
	ignoreFailures      bool // failurePolicy Ignore
	timeout             time.Duration
	sideEffectsOnDryRun bool // sideEffects Some, Unknown or unset
	reinvoke            bool // reinvocationPolicy IfNeeded (mutating only)
	// client calls the webhook; when the configuration cannot be turned
	// into one, clientErr says why and every call fails with it (under
	// the failure policy), as kube fails to get a REST client.
	client    caller
	clientErr error
}

// common is what mutating and validating webhooks share.
type common struct {
	Name                    string
	ClientConfig            admissionregistrationv1.WebhookClientConfig
	Rules                   []admissionregistrationv1.RuleWithOperations
	FailurePolicy           *admissionregistrationv1.FailurePolicyType
	MatchPolicy             *admissionregistrationv1.MatchPolicyType
	NamespaceSelector       *metav1.LabelSelector
	ObjectSelector          *metav1.LabelSelector
	SideEffects             *admissionregistrationv1.SideEffectClass
	TimeoutSeconds          *int32
	AdmissionReviewVersions []string
	MatchConditions         []admissionregistrationv1.MatchCondition
	ReinvocationPolicy      *admissionregistrationv1.ReinvocationPolicyType // mutating only
}

func fromMutating(w admissionregistrationv1.MutatingWebhook) common {
	return common{
		Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules, FailurePolicy: w.FailurePolicy,
		MatchPolicy: w.MatchPolicy, NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector,
		SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds,
		AdmissionReviewVersions: w.AdmissionReviewVersions, MatchConditions: w.MatchConditions,
		ReinvocationPolicy: w.ReinvocationPolicy,
	}
}

func fromValidating(w admissionregistrationv1.ValidatingWebhook) common {
	return common{
		Name: w.Name, ClientConfig: w.ClientConfig, Rules: w.Rules, FailurePolicy: w.FailurePolicy,
		MatchPolicy: w.MatchPolicy, NamespaceSelector: w.NamespaceSelector, ObjectSelector: w.ObjectSelector,
		SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds,
		AdmissionReviewVersions: w.AdmissionReviewVersions, MatchConditions: w.MatchConditions,
	}
}

// newHook prepares w with kube's defaults: failurePolicy Fail, matchPolicy
// Equivalent, empty selectors (everything), timeoutSeconds 10. A selector
// that does not parse fails the requests the rules match, as in kube, and
// match conditions that do not compile fail them under the failure policy:
// the registry's validation refuses both, so they only come from a
// configuration stored before it.
func newHook(configuration string, w common, clients *clients) *hook {
	h := &hook{
		name: w.Name, configuration: configuration,
		exact:               w.MatchPolicy != nil && *w.MatchPolicy == admissionregistrationv1.Exact,
		reinvoke:            w.ReinvocationPolicy != nil && *w.ReinvocationPolicy == admissionregistrationv1.IfNeededReinvocationPolicy,
		ignoreFailures:      w.FailurePolicy != nil && *w.FailurePolicy == admissionregistrationv1.Ignore,
		timeout:             defaultTimeout,
		sideEffectsOnDryRun: !noSideEffectsOnDryRun(w.SideEffects),
		conditions:          compileConditions(w.MatchConditions),
	}
	h.rules, h.anyVersion = asRules(w.Rules, false), asRules(w.Rules, true)
	var nsErr, objErr error
	h.namespaceSelector, nsErr = parseSelector(w.NamespaceSelector)
	h.objectSelector, objErr = parseSelector(w.ObjectSelector)
	h.selectorErr = errors.Join(nsErr, objErr)
	if w.TimeoutSeconds != nil && *w.TimeoutSeconds > 0 {
		h.timeout = time.Duration(*w.TimeoutSeconds) * time.Second
	}
	h.client, h.clientErr = clients.forWebhook(w.ClientConfig, w.AdmissionReviewVersions, h.timeout)
	return h
}

// noSideEffectsOnDryRun reports whether a webhook may be called about a
// dry run: only when it declared None or NoneOnDryRun.
func noSideEffectsOnDryRun(s *admissionregistrationv1.SideEffectClass) bool {
	return s != nil && (*s == admissionregistrationv1.SideEffectClassNone || *s == admissionregistrationv1.SideEffectClassNoneOnDryRun)
}

// parseSelector parses a label selector; nil is everything.
func parseSelector(s *metav1.LabelSelector) (labels.Selector, error) {
	if s == nil {
		return labels.Everything(), nil
	}
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return labels.Nothing(), err
	}
	return sel, nil
}

// key names the webhook among all configurations' webhooks, as kube's
// reinvocation record names it (names are unique in a configuration).
func (h *hook) key() string { return h.configuration + "/" + h.name }
