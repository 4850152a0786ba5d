package admission

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	pkgadmission "github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/apiwait"
	"github.com/kubesplit/kubesplit/pkg/tracing"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// Local is the enabled plugins running in process: their informers, their
// background work, and the two chains the registry calls.
type Local struct {
	names      []string
	mutating   pkgadmission.Admitter
	validating pkgadmission.Admitter
	rules      pkgadmission.Rules          // the static ones
	dynamic    []func() pkgadmission.Rules // plugins' CurrentRules
	synced     atomic.Bool
	cancel     context.CancelFunc
	stopped    chan struct{} // closed by Close: plugin.Deps.Stopped
	stopOnce   sync.Once
	wg         sync.WaitGroup
	factory    informers.SharedInformerFactory
}

// NewLocal builds the enabled plugins, then starts the shared informers
// and each plugin's background work (under its Lease). It returns at once;
// Ready tells when the informers have synced (until then the plugins wait
// for them, up to plugin.SyncWait per request). ctx bounds the start only;
// Close stops everything.
func NewLocal(ctx context.Context, cfg LocalConfig) (*Local, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	selected, err := selectPlugins(cfg.EnablePlugins, cfg.DisablePlugins)
	if err != nil {
		return nil, err
	}
	runs, err := controllersOn(cfg.Controllers)
	if err != nil {
		return nil, err
	}
	if err := cfg.DefaultTolerations.apply(); err != nil {
		return nil, err
	}
	client, err := clientFor(cfg)
	if err != nil {
		return nil, err
	}
	l := &Local{factory: informers.NewSharedInformerFactory(client, 0), stopped: make(chan struct{})}
	md, dyn, err := untypedClients(cfg.RESTConfig)
	if err != nil {
		return nil, err
	}
	var jobs []job
	deps := plugin.Deps{
		Client: client, Informers: l.factory, MetadataClient: md, Dynamic: dyn, Stopped: l.stopped,
		Run: func(name string, f func(context.Context)) {
			if runs[name] {
				jobs = append(jobs, job{name: name, run: f})
			}
		},
	}
	if err := l.build(selected, deps, cfg); err != nil {
		close(l.stopped) // the plugins built already
		return nil, err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	l.cancel = cancel
	l.start(runCtx, client, jobs, cfg)
	return l, nil
}

// clientFor is the configured client, or one made from RESTConfig.
func clientFor(cfg LocalConfig) (kubernetes.Interface, error) {
	if cfg.Client != nil {
		return cfg.Client, nil
	}
	// client-go's default of 5 requests a second would throttle the
	// plugins' live lookups and the escalation check's reviews, one per
	// rule: admission's calls are bounded by the writes it is asked about.
	rc := rest.CopyConfig(cfg.RESTConfig)
	rc.QPS, rc.Burst = -1, 0
	// The plugins' calls made for a write (quota charges, escalation
	// reviews) belong to its trace.
	rc.Wrap(tracing.Transport)
	c, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return c, nil
}

// untypedClients are the metadata-only and the dynamic clients from rc,
// unthrottled as the typed one; nil without rc.
func untypedClients(rc *rest.Config) (metadata.Interface, dynamic.Interface, error) {
	if rc == nil {
		return nil, nil, nil
	}
	rc = rest.CopyConfig(rc)
	rc.QPS, rc.Burst = -1, 0
	md, err := metadata.NewForConfig(rc)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return md, dyn, nil
}

// build constructs every selected plugin and sorts its halves into the
// two chains, keeping the running order in each.
func (l *Local) build(selected []registration, deps plugin.Deps, cfg LocalConfig) error {
	var mutating, validating []pkgadmission.Admitter
	for _, p := range selected {
		d := deps
		d.Log = cfg.Log.With("plugin", p.name)
		m, v, err := construct(p, d)
		if err != nil {
			return fmt.Errorf("admission plugin %s: %w", p.name, err)
		}
		rules := p.rules()
		if current := dynamicRules(m, v); current != nil {
			l.dynamic = append(l.dynamic, current)
			rules = pkgadmission.Rules{}
		} else if err := checkRules(m, v, rules); err != nil {
			return fmt.Errorf("admission plugin %s: %w", p.name, err)
		}
		if m != nil {
			mutating = append(mutating, pkgadmission.Mutating(m))
			l.rules.Mutating = append(l.rules.Mutating, rules.Mutating...)
		}
		if v != nil {
			validating = append(validating, pkgadmission.Validating(v))
			l.rules.Validating = append(l.rules.Validating, rules.Validating...)
		}
		l.names = append(l.names, p.name)
	}
	var err error
	if l.mutating, err = pkgadmission.Chain(mutating...); err != nil {
		return err
	}
	l.mutating = pkgadmission.Reinvoking(l.mutating)
	l.validating, err = pkgadmission.Chain(validating...)
	return err
}

// construct returns a plugin's mutating and validating halves (either may
// be nil). A plugin with only New goes whole to the phase it is marked
// with.
func construct(p registration, deps plugin.Deps) (m, v pkgadmission.Admitter, err error) {
	if p.phases != nil {
		return p.phases(deps)
	}
	a, err := p.new(deps)
	if err != nil || a == nil {
		return nil, nil, err
	}
	if pkgadmission.PhaseOf(a) == pkgadmission.PhaseMutating {
		return a, nil, nil
	}
	return nil, a, nil
}

// checkRules refuses a plugin half without rules, which the registry would
// never ask, and rules for a half the plugin does not have.
func checkRules(m, v pkgadmission.Admitter, rules pkgadmission.Rules) error {
	if (m != nil) != (len(rules.Mutating) > 0) || (v != nil) != (len(rules.Validating) > 0) {
		return fmt.Errorf("%w: rules (%d mutating, %d validating) do not fit the plugin's halves (mutating %t, validating %t)",
			ErrInvalidConfig, len(rules.Mutating), len(rules.Validating), m != nil, v != nil)
	}
	return nil
}

// dynamicRules is the CurrentRules of a plugin whose rules follow objects
// in the cluster (plugin.DynamicRules), nil for one with static rules.
func dynamicRules(m, v pkgadmission.Admitter) func() pkgadmission.Rules {
	for _, a := range []pkgadmission.Admitter{m, v} {
		if d, ok := a.(plugin.DynamicRules); ok {
			return d.CurrentRules
		}
	}
	return nil
}

// start runs the informers once the API answers, notes when they synced,
// and starts the background jobs.
func (l *Local) start(ctx context.Context, client kubernetes.Interface, jobs []job, cfg LocalConfig) {
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		// The factory must have started before waitSynced asks it: an
		// unstarted factory has no informers to wait for and says synced.
		apiwait.Wait(ctx, client)
		l.factory.Start(ctx.Done())
		if !l.waitSynced(ctx) {
			return
		}
		l.synced.Store(true)
		cfg.Log.Info("admission informers synced", "plugins", l.names)
	}()
	identity := leaseIdentity(cfg.Identity)
	for _, j := range jobs {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			runLeased(ctx, client, identity, j, cfg.Log)
		}()
	}
}

// Plugins are the enabled plugins' names, in running order.
func (l *Local) Plugins() []string { return append([]string(nil), l.names...) }

// Mutating is the chain of the plugins' mutating halves, marked Mutating:
// what the registry asks before its own defaulting and validation.
func (l *Local) Mutating() pkgadmission.Admitter { return l.mutating }

// Validating is the chain of the plugins' validating halves: what the
// registry asks about the object it will store.
func (l *Local) Validating() pkgadmission.Admitter { return l.validating }

// Rules are the requests the enabled plugins look at now, per phase: the
// union of their rules, the dynamic ones as they are at this call. The
// registry need not ask about any other.
func (l *Local) Rules() pkgadmission.Rules {
	out := pkgadmission.Rules{
		Mutating:   append([]pkgadmission.Rule{}, l.rules.Mutating...),
		Validating: append([]pkgadmission.Rule{}, l.rules.Validating...),
	}
	for _, current := range l.dynamic {
		r := current()
		out.Mutating = append(out.Mutating, r.Mutating...)
		out.Validating = append(out.Validating, r.Validating...)
	}
	return out
}

// Ready tells whether every plugin's informers have synced.
func (l *Local) Ready() bool { return l.synced.Load() }

// ready is the informers-synced readiness check.
func (l *Local) ready(context.Context) error {
	if !l.Ready() {
		return ErrNotSynced
	}
	return nil
}

// Close stops the informers and the background work (releasing its
// Leases) and waits for them.
func (l *Local) Close() {
	l.cancel()
	l.stopOnce.Do(func() { close(l.stopped) })
	l.factory.Shutdown()
	l.wg.Wait()
}

// waitSynced waits for every informer the plugins asked for; false if ctx
// ended first.
func (l *Local) waitSynced(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false // the factory was not started
	}
	for _, ok := range l.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return false
		}
	}
	return true
}
