package admission

import (
	"fmt"
	"slices"

	pkgadmission "github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/escalation"
	"github.com/kubesplit/kubesplit/services/admission/internal/kubeplugin"
	"github.com/kubesplit/kubesplit/services/admission/internal/lifecycle"
	"github.com/kubesplit/kubesplit/services/admission/internal/limitranger"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
	"github.com/kubesplit/kubesplit/services/admission/internal/policy"
	"github.com/kubesplit/kubesplit/services/admission/internal/quota"
	"github.com/kubesplit/kubesplit/services/admission/internal/serviceaccount"
	"github.com/kubesplit/kubesplit/services/admission/internal/webhooks"
)

// The plugins' names, as --enable-admission-plugins takes them.
const (
	NamespaceLifecycle = "NamespaceLifecycle"
	LimitRanger        = "LimitRanger"
	ServiceAccount     = "ServiceAccount"
	RBACEscalation     = "RBACEscalation"
	ResourceQuota      = "ResourceQuota"
	// MutatingAdmissionPolicy is kube's plugin applying the mutations of
	// MutatingAdmissionPolicies through their bindings.
	MutatingAdmissionPolicy = kubeplugin.MutatingAdmissionPolicy
	// ValidatingAdmissionPolicy evaluates ValidatingAdmissionPolicies
	// through their bindings, with CEL.
	ValidatingAdmissionPolicy = "ValidatingAdmissionPolicy"
	// MutatingAdmissionWebhook and ValidatingAdmissionWebhook call the
	// webhooks of MutatingWebhookConfiguration and
	// ValidatingWebhookConfiguration objects.
	MutatingAdmissionWebhook   = "MutatingAdmissionWebhook"
	ValidatingAdmissionWebhook = "ValidatingAdmissionWebhook"
)

// Kube's own plugins, run through kubeplugin: their names are kube's.
var (
	NodeRestriction               = kubeplugin.NodeRestriction.Name
	TaintNodesByCondition         = kubeplugin.TaintNodesByCondition.Name
	AlwaysPullImages              = kubeplugin.AlwaysPullImages.Name
	PodSecurity                   = kubeplugin.PodSecurity.Name
	Priority                      = kubeplugin.Priority.Name
	DefaultTolerationSeconds      = kubeplugin.DefaultTolerationSeconds.Name
	DefaultStorageClass           = kubeplugin.DefaultStorageClass.Name
	StorageObjectInUseProtection  = kubeplugin.StorageObjectInUseProtection.Name
	PodGroupProtection            = kubeplugin.PodGroupProtection.Name
	PersistentVolumeClaimResize   = kubeplugin.PersistentVolumeClaimResize.Name
	RuntimeClass                  = kubeplugin.RuntimeClass.Name
	CertificateApproval           = kubeplugin.CertificateApproval.Name
	CertificateSigning            = kubeplugin.CertificateSigning.Name
	ClusterTrustBundleAttest      = kubeplugin.ClusterTrustBundleAttest.Name
	CertificateSubjectRestriction = kubeplugin.CertificateSubjectRestriction.Name
	DefaultIngressClass           = kubeplugin.DefaultIngressClass.Name
	PodTopologyLabels             = kubeplugin.PodTopologyLabels.Name
	NodeDeclaredFeatureValidator  = kubeplugin.NodeDeclaredFeatureValidator.Name
	PodResizeValidator            = kubeplugin.PodResizeValidator.Name
)

// registration is one built-in plugin: New, or Phases for a plugin whose
// two halves are served on the two paths separately, and the requests each
// half looks at, which the service publishes so that the registry asks
// only about those. A plugin whose admitter implements plugin.DynamicRules
// publishes its CurrentRules at every fetch instead of its static rules.
// An off plugin runs only when enabled, as kube's default-off ones.
type registration struct {
	name   string
	new    plugin.Constructor
	phases plugin.PhasesConstructor
	rules  func() pkgadmission.Rules
	off    bool
}

// kube is the registration of one of kube's own plugins.
func kube(p kubeplugin.Plugin) registration {
	return registration{name: p.Name, phases: p.NewPhases, rules: p.Rules}
}

// kubeOff is kube's plugin p, off unless enabled.
func kubeOff(p kubeplugin.Plugin) registration {
	r := kube(p)
	r.off = true
	return r
}

// plugins is every built-in plugin, in the order they run whatever the
// order of the flags: kube-apiserver's (AllOrderedPlugins in its
// pkg/kubeapiserver/options), ResourceQuota last so that nothing is
// charged for a write another plugin refuses; the admission policies and
// webhooks after the built-in plugins of their phase, as in kube. RBACEscalation, which kube
// runs in its RBAC storage rather than as a plugin, comes after kube's
// plugins, before the webhooks.
var plugins = []registration{
	{name: NamespaceLifecycle, new: lifecycle.New, rules: lifecycle.Rules},
	{name: LimitRanger, phases: limitranger.NewPhases, rules: limitranger.Rules},
	{name: ServiceAccount, phases: serviceaccount.NewPhases, rules: serviceaccount.Rules},
	kubeOff(kubeplugin.NodeRestriction),
	kube(kubeplugin.TaintNodesByCondition),
	kubeOff(kubeplugin.AlwaysPullImages),
	kube(kubeplugin.PodSecurity),
	kube(kubeplugin.Priority),
	kube(kubeplugin.DefaultTolerationSeconds),
	kube(kubeplugin.DefaultStorageClass),
	kube(kubeplugin.StorageObjectInUseProtection),
	kube(kubeplugin.PodGroupProtection),
	kube(kubeplugin.PersistentVolumeClaimResize),
	kube(kubeplugin.RuntimeClass),
	kube(kubeplugin.CertificateApproval),
	kube(kubeplugin.CertificateSigning),
	kube(kubeplugin.ClusterTrustBundleAttest),
	kube(kubeplugin.CertificateSubjectRestriction),
	kube(kubeplugin.DefaultIngressClass),
	kube(kubeplugin.PodTopologyLabels),
	kube(kubeplugin.NodeDeclaredFeatureValidator),
	kube(kubeplugin.PodResizeValidator),
	{name: MutatingAdmissionPolicy, phases: kubeplugin.NewMutatingPolicyPhases, rules: policy.NoRules},
	{name: RBACEscalation, new: escalation.New, rules: escalation.Rules},
	{name: MutatingAdmissionWebhook, phases: webhooks.NewMutatingPhases, rules: webhooks.NoRules},
	{name: ValidatingAdmissionPolicy, new: policy.New, rules: policy.NoRules},
	{name: ValidatingAdmissionWebhook, new: webhooks.NewValidating, rules: webhooks.NoRules},
	{name: ResourceQuota, new: quota.New, rules: quota.Rules},
}

// DefaultPlugins are the plugins on unless disabled, in running order: all
// but the off ones, as in kube-apiserver, whose defaults include each of
// these (RBACEscalation is kube's RBAC registry check, which is always on
// there).
func DefaultPlugins() []string {
	var names []string
	for _, p := range plugins {
		if !p.off {
			names = append(names, p.name)
		}
	}
	return names
}

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
