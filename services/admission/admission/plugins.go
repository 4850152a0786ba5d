package admission

import (
	"fmt"
	"slices"

	pkgadmission "github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/escalation"
	"github.com/kubesplit/kubesplit/services/admission/internal/lifecycle"
	"github.com/kubesplit/kubesplit/services/admission/internal/limitranger"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
	"github.com/kubesplit/kubesplit/services/admission/internal/policy"
	"github.com/kubesplit/kubesplit/services/admission/internal/quota"
	"github.com/kubesplit/kubesplit/services/admission/internal/serviceaccount"
	"github.com/kubesplit/kubesplit/services/admission/internal/tolerations"
	"github.com/kubesplit/kubesplit/services/admission/internal/webhooks"
)

// The plugins' names, as --enable-admission-plugins takes them.
const (
	NamespaceLifecycle = "NamespaceLifecycle"
	LimitRanger        = "LimitRanger"
	ServiceAccount     = "ServiceAccount"
	RBACEscalation     = "RBACEscalation"
	// DefaultTolerationSeconds gives pods kube's five-minute tolerations
	// of their node becoming not-ready or unreachable.
	DefaultTolerationSeconds = tolerations.Name
	ResourceQuota            = "ResourceQuota"
	// ValidatingAdmissionPolicy evaluates ValidatingAdmissionPolicies
	// through their bindings, with CEL.
	ValidatingAdmissionPolicy = "ValidatingAdmissionPolicy"
	// MutatingAdmissionWebhook and ValidatingAdmissionWebhook call the
	// webhooks of MutatingWebhookConfiguration and
	// ValidatingWebhookConfiguration objects.
	MutatingAdmissionWebhook   = "MutatingAdmissionWebhook"
	ValidatingAdmissionWebhook = "ValidatingAdmissionWebhook"
)

// registration is one built-in plugin: New, or Phases for a plugin whose
// two halves are served on the two paths separately, and the requests each
// half looks at, which the service publishes so that the registry asks
// only about those. A plugin whose admitter implements plugin.DynamicRules
// publishes its CurrentRules at every fetch instead of its static rules.
type registration struct {
	name   string
	new    plugin.Constructor
	phases plugin.PhasesConstructor
	rules  func() pkgadmission.Rules
}

// plugins is every built-in plugin, in the order they run whatever the
// order of the flags: kube's recommended order, ResourceQuota last so that
// nothing is charged for a write another plugin refuses; the webhooks after
// the built-in plugins of their phase, as in kube.
var plugins = []registration{
	{name: NamespaceLifecycle, new: lifecycle.New, rules: lifecycle.Rules},
	{name: LimitRanger, phases: limitranger.NewPhases, rules: limitranger.Rules},
	{name: ServiceAccount, phases: serviceaccount.NewPhases, rules: serviceaccount.Rules},
	{name: DefaultTolerationSeconds, new: tolerations.New, rules: tolerations.Rules},
	{name: RBACEscalation, new: escalation.New, rules: escalation.Rules},
	{name: MutatingAdmissionWebhook, phases: webhooks.NewMutatingPhases, rules: webhooks.NoRules},
	{name: ValidatingAdmissionPolicy, new: policy.New, rules: policy.NoRules},
	{name: ValidatingAdmissionWebhook, new: webhooks.NewValidating, rules: webhooks.NoRules},
	{name: ResourceQuota, new: quota.New, rules: quota.Rules},
}

// DefaultPlugins are the plugins on unless disabled: all of them, as in
// kube-apiserver, whose defaults include each of these (RBACEscalation is
// kube's RBAC registry check, which is always on there).
func DefaultPlugins() []string { return AllPlugins() }

// AllPlugins are the names of the built-in plugins, in running order.
func AllPlugins() []string {
	names := make([]string, len(plugins))
	for i, p := range plugins {
		names[i] = p.name
	}
	return names
}

// selectPlugins is kube's --enable-admission-plugins and
// --disable-admission-plugins: the defaults, plus enabled, minus disabled,
// in running order. Unknown names, and a name in both lists, are errors.
func selectPlugins(enable, disable []string) ([]registration, error) {
	if err := checkTable(plugins); err != nil {
		return nil, err
	}
	for _, n := range slices.Concat(enable, disable) {
		if !slices.Contains(AllPlugins(), n) {
			return nil, fmt.Errorf("%w: unknown admission plugin %q (known: %v)", ErrInvalidConfig, n, AllPlugins())
		}
	}
	for _, n := range enable {
		if slices.Contains(disable, n) {
			return nil, fmt.Errorf("%w: admission plugin %q is both enabled and disabled", ErrInvalidConfig, n)
		}
	}
	var out []registration
	for _, p := range plugins {
		on := slices.Contains(DefaultPlugins(), p.name) || slices.Contains(enable, p.name)
		if on && !slices.Contains(disable, p.name) {
			out = append(out, p)
		}
	}
	return out, nil
}

// checkTable refuses a table naming a plugin twice, or a row with no
// constructor or no rules, so that a wiring mistake fails at start-up.
func checkTable(table []registration) error {
	seen := map[string]bool{}
	for _, p := range table {
		if seen[p.name] {
			return fmt.Errorf("%w: admission plugin %q registered twice", ErrInvalidConfig, p.name)
		}
		if (p.new == nil) == (p.phases == nil) {
			return fmt.Errorf("%w: admission plugin %q needs exactly one constructor", ErrInvalidConfig, p.name)
		}
		if p.rules == nil {
			return fmt.Errorf("%w: admission plugin %q declares no rules", ErrInvalidConfig, p.name)
		}
		seen[p.name] = true
	}
	return nil
}
