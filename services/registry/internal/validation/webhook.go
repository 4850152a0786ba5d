package validation

import (
	"fmt"
	"slices"
	"strings"

	admv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	// noSideEffects are the side-effect classes admissionregistration/v1
	// accepts: a webhook must be safe to call on a dry run.
	noSideEffects = []admv1.SideEffectClass{admv1.SideEffectClassNone, admv1.SideEffectClassNoneOnDryRun}
	// reinvocationPolicies are the mutating webhooks' policies.
	reinvocationPolicies = []admv1.ReinvocationPolicyType{admv1.IfNeededReinvocationPolicy, admv1.NeverReinvocationPolicy}
	// admissionReviewVersions are the AdmissionReview versions kube speaks;
	// a webhook must accept one of them.
	admissionReviewVersions = []string{"v1", "v1beta1"}
)

// defaultWebhookTimeout is how long kube waits for a webhook by default.
const defaultWebhookTimeout = 10

// DefaultMutatingWebhookConfiguration fills in each webhook's defaults.
func DefaultMutatingWebhookConfiguration(obj *unstructured.Unstructured) {
	for _, hook := range mapsAt(obj.Object, "webhooks") {
		defaultWebhook(hook)
		setDefault(hook, "reinvocationPolicy", string(admv1.NeverReinvocationPolicy))
	}
}

// DefaultValidatingWebhookConfiguration fills in each webhook's defaults.
func DefaultValidatingWebhookConfiguration(obj *unstructured.Unstructured) {
	for _, hook := range mapsAt(obj.Object, "webhooks") {
		defaultWebhook(hook)
	}
}

// defaultWebhook applies the defaults both kinds of webhook share: fail
// closed, match equivalent versions, select everything, wait ten seconds,
// and call services on 443.
func defaultWebhook(hook map[string]any) {
	setDefault(hook, "failurePolicy", string(admv1.Fail))
	setDefault(hook, "matchPolicy", string(admv1.Equivalent))
	setDefault(hook, "namespaceSelector", map[string]any{})
	setDefault(hook, "objectSelector", map[string]any{})
	setDefault(hook, "timeoutSeconds", int64(defaultWebhookTimeout))
	defaultRules(hook, "rules")
	setDefault(mapAt(mapAt(hook, "clientConfig"), "service"), "port", int64(defaultServicePort))
}

// ValidateMutatingWebhookConfiguration checks every webhook, and that their
// names are unique.
func ValidateMutatingWebhookConfiguration(obj, old *unstructured.Unstructured) field.ErrorList {
	cfg, _, errs := decodePair[admv1.MutatingWebhookConfiguration](obj, old)
	if len(errs) > 0 {
		return errs
	}
	names := map[string]bool{}
	for i := range cfg.Webhooks {
		hook, p := &cfg.Webhooks[i], field.NewPath("webhooks").Index(i)
		errs = append(errs, validateWebhook(asValidatingWebhook(hook), names, p)...)
		if r := hook.ReinvocationPolicy; r != nil && !slices.Contains(reinvocationPolicies, *r) {
			errs = append(errs, field.NotSupported(p.Child("reinvocationPolicy"), *r, reinvocationPolicies))
		}
	}
	return errs
}

// ValidateValidatingWebhookConfiguration checks every webhook, and that
// their names are unique.
func ValidateValidatingWebhookConfiguration(obj, old *unstructured.Unstructured) field.ErrorList {
	cfg, _, errs := decodePair[admv1.ValidatingWebhookConfiguration](obj, old)
	if len(errs) > 0 {
		return errs
	}
	names := map[string]bool{}
	for i := range cfg.Webhooks {
		errs = append(errs, validateWebhook(&cfg.Webhooks[i], names, field.NewPath("webhooks").Index(i))...)
	}
	return errs
}

// asValidatingWebhook takes the fields a mutating webhook shares with a
// validating one, all but reinvocationPolicy, so that one function checks
// both kinds.
func asValidatingWebhook(h *admv1.MutatingWebhook) *admv1.ValidatingWebhook {
	return &admv1.ValidatingWebhook{
		Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules,
		FailurePolicy: h.FailurePolicy, MatchPolicy: h.MatchPolicy,
		NamespaceSelector: h.NamespaceSelector, ObjectSelector: h.ObjectSelector,
		SideEffects: h.SideEffects, TimeoutSeconds: h.TimeoutSeconds,
		AdmissionReviewVersions: h.AdmissionReviewVersions, MatchConditions: h.MatchConditions,
	}
}

// validateWebhook checks one webhook; names collects the names seen so far.
func validateWebhook(h *admv1.ValidatingWebhook, names map[string]bool, p *field.Path) field.ErrorList {
	errs := validation.IsFullyQualifiedName(p.Child("name"), h.Name)
	if h.Name != "" {
		if names[h.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), h.Name))
		}
		names[h.Name] = true
	}
	for i := range h.Rules {
		errs = append(errs, validateRuleWithOperations(&h.Rules[i], p.Child("rules").Index(i))...)
	}
	errs = append(errs, validateWebhookPolicies(h, p)...)
	if h.NamespaceSelector != nil {
		errs = append(errs, validateSelector(h.NamespaceSelector, p.Child("namespaceSelector"))...)
	}
	if h.ObjectSelector != nil {
		errs = append(errs, validateSelector(h.ObjectSelector, p.Child("objectSelector"))...)
	}
	errs = append(errs, validateClientConfig(h.ClientConfig.URL, admissionServiceRef(h.ClientConfig.Service), p.Child("clientConfig"))...)
	errs = append(errs, validateAdmissionReviewVersions(h.AdmissionReviewVersions, p.Child("admissionReviewVersions"))...)
	return append(errs, validateMatchConditions(h.MatchConditions, p.Child("matchConditions"))...)
}

// validateWebhookPolicies checks the enums and the timeout of a webhook.
func validateWebhookPolicies(h *admv1.ValidatingWebhook, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if h.FailurePolicy != nil && !slices.Contains(failurePolicies, *h.FailurePolicy) {
		errs = append(errs, field.NotSupported(p.Child("failurePolicy"), *h.FailurePolicy, failurePolicies))
	}
	if h.MatchPolicy != nil && !slices.Contains(matchPolicies, *h.MatchPolicy) {
		errs = append(errs, field.NotSupported(p.Child("matchPolicy"), *h.MatchPolicy, matchPolicies))
	}
	switch {
	case h.SideEffects == nil:
		errs = append(errs, field.Required(p.Child("sideEffects"), "must specify one of None, NoneOnDryRun"))
	case !slices.Contains(noSideEffects, *h.SideEffects):
		errs = append(errs, field.NotSupported(p.Child("sideEffects"), *h.SideEffects, noSideEffects))
	}
	if t := h.TimeoutSeconds; t != nil && (*t < 1 || *t > 30) {
		errs = append(errs, field.Invalid(p.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"))
	}
	return errs
}

// admissionServiceRef adapts an admission webhook's service reference.
func admissionServiceRef(s *admv1.ServiceReference) *serviceRef {
	if s == nil {
		return nil
	}
	return &serviceRef{namespace: s.Namespace, name: s.Name, path: s.Path, port: s.Port}
}

// validateAdmissionReviewVersions checks the versions a webhook accepts:
// at least one, no duplicates, and one kube can send.
func validateAdmissionReviewVersions(versions []string, p *field.Path) field.ErrorList {
	accepted := strings.Join(admissionReviewVersions, ", ")
	if len(versions) == 0 {
		return field.ErrorList{field.Required(p, "must specify one of "+accepted)}
	}
	var errs field.ErrorList
	seen, known := map[string]bool{}, false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, field.Invalid(p.Index(i), v, "duplicate version"))
			continue
		}
		seen[v] = true
		errs = append(errs, invalidEach(p.Index(i), v, validation.IsDNS1035Label(v))...)
		known = known || slices.Contains(admissionReviewVersions, v)
	}
	if !known {
		errs = append(errs, field.Invalid(p, versions, fmt.Sprintf("must include at least one of %s", accepted)))
	}
	return errs
}
