package aggregator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubesplit/kubesplit/pkg/health"
	"github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/apiservice"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/discovery"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"
)

// The aggregator's health endpoints are the split API server's: they list
// the checks kube-apiserver lists (kube's conformance test "health
// handlers should contain necessary checks" requires them by name), each
// standing for the state of the service that does that work here. The
// backends serve their own named checks without credentials; the
// aggregator reads them from each endpoint's /readyz?verbose.
//
//	check                                          what it checks here
//	ping                                           the aggregator answers
//	log                                            its log writes get through (none blocked 10s, the last one succeeded)
//	etcd                                           the registry's "etcd": a registry replica reaches etcd
//	informer-sync (readyz)                         the registry's "informer-sync" (every cache filled, CRDs served) and the aggregator's APIService informer synced
//	poststarthook/start-apiserver-admission-initializer
//	                                               an admission endpoint's /readyz passes (--admission-url); without one, the registry's bootstrap
//	                                               is done, which with remote admission needed admission to admit its writes
//	poststarthook/generic-apiserver-start-informers as informer-sync
//	poststarthook/storage-readiness                the registry's "storage-readiness": every built-in resource's watch cache filled
//	poststarthook/start-apiextensions-informers    the registry's "crds-synced": CRD serving follows the CRD store
//	poststarthook/crd-informer-synced              the same
//	poststarthook/start-apiextensions-controllers  a registry replica holds the CRD controllers' Lease (kube-system/kubesplit-customresourcedefinition-controller), renewed in time
//	poststarthook/bootstrap-controller             the registry's bootstrap was written (system namespaces, RBAC policy, system PriorityClasses,
//	                                               flow control up to its last FlowSchema, global-default), and etcd answers now
//	poststarthook/start-system-namespaces-controller the system namespaces exist, Active, and etcd answers now
//	poststarthook/scheduling/bootstrap-system-priority-classes the system PriorityClasses exist, and etcd answers now
//	poststarthook/start-service-ip-repair-controllers the registry's "service-ip-repair" when it serves one; until it does, what a
//	                                               repair reads, the registry's "storage-readiness" (Services', IPAddresses', ServiceCIDRs' caches)
//	poststarthook/start-cluster-authentication-info-controller
//	                                               an authn endpoint's /readyz passes (with an authn upstream), and this aggregator's last write
//	                                               of kube-system/extension-apiserver-authentication succeeded
//	poststarthook/start-kube-aggregator-informers  the APIService informer has synced
//	poststarthook/apiservice-registration-controller the APIServices are installed into the routes
//	poststarthook/apiservice-status-local-available-controller every local APIService is marked Available
//	poststarthook/apiservice-status-remote-available-controller every APIService backend has been checked once
//	poststarthook/kube-apiserver-autoregistration  every upstream answered the merged discovery (/apis), so its groups are routed
//	autoregister-completion                        that, and every custom resource group version the registry serves has its APIService
//	poststarthook/apiservice-openapi-controller    the registry serves /openapi/v3, which the aggregator routes there
//	upstream-<name> (readyz)                       some endpoint of that upstream is in rotation (its /readyz passed at the last check)
//
// ping, log and etcd say how things stand on every endpoint (etcd as
// kube's does). The poststarthook/… checks and autoregister-completion are
// post-start hooks (health.Hook): /readyz says how they stand now, so a
// registry outage fails etcd and everything that reads through the
// registry, while /livez and /healthz pass once they have passed, so that
// the liveness probe of the front door does not restart it for a
// backend's outage.

// Bounds of the checks that ask another service.
const (
	// remoteTimeout bounds one round of asking (a backend's /readyz, a
	// read through the registry); kube's etcd check allows as long.
	remoteTimeout = 2 * time.Second
	// remoteFresh is how long an answer serves further checks, so that the
	// checks of one probe, and concurrent probes, share one round.
	remoteFresh = time.Second
	// failedFresh is remoteFresh for an answer that says something is not
	// ready yet: asked again sooner, so that readiness follows the moment
	// it is reached (a starting stack's probes) rather than up to a second
	// after.
	failedFresh = 100 * time.Millisecond
	// maxVerboseBody bounds a backend's /readyz?verbose answer.
	maxVerboseBody = 64 << 10
	// leaseSlack is how late a Lease's renewal may be, beyond its
	// duration, before its holder counts as gone: clocks differ.
	leaseSlack = 10 * time.Second
)

// The registry's named checks the aggregator's stand on.
const (
	registryEtcd             = "etcd"
	registryInformerSync     = "informer-sync"
	registryStorageReadiness = "storage-readiness"
	registryCRDInformer      = "crds-synced"
	registryServiceIPRepair  = "service-ip-repair"
)

// crdControllerLease is the Lease the registry replica running the CRD
// controllers (establishing, naming, finalizing, their APIServices) holds.
const crdControllerLease = "kubesplit-customresourcedefinition-controller"

// System objects the registry's bootstrap writes, as kube-apiserver's
// post-start hooks do.
var (
	systemNamespaces      = []string{metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease}
	systemPriorityClasses = []string{"system-cluster-critical", "system-node-critical"}
)

// healthDeps are what the checks read.
type healthDeps struct {
	ups       map[string]*upstream.Upstream
	admission *upstream.Upstream // nil without --admission-url
	kube      kubernetes.Interface
	registry  discovery.Backend // the registry's proxy, for /openapi
	routes    *discovery.Handler
	ctrl      *apiservice.Controller
	published *publication
	log       *health.LogCheck
}

// probes serve the health endpoints, with no credentials, so that probes
// work (DESIGN.md, "Trust between hops"); see the table above.
func probes(d healthDeps) func(http.Handler) http.Handler {
	live, ready := healthChecks(d)
	return health.Probes(live, ready)
}

// healthChecks are the live and the ready checks of the table above.
func healthChecks(d healthDeps) (live, ready []health.Check) {
	reg := newRemote(d.ups[registryUpstream])
	etcd := reg.check(registryEtcd)
	informers := allOf(reg.check(registryInformerSync), ignoreCtx(d.ctrl.InformerSynced))
	crd := reg.check(registryCRDInformer)
	api := newAPIReads(d.kube)
	bootstrap := allOf(etcd, api.bootstrapWritten.get)
	admission := func(ctx context.Context) error {
		if err := bootstrap(ctx); err != nil {
			return fmt.Errorf("no admission upstream to ask; the registry's bootstrap, which admission admits, is not done: %w", err)
		}
		return nil
	}
	if d.admission != nil {
		admission = newRemote(d.admission).ready
	}
	authnInfo := d.published.check
	if up := d.ups[authnUpstream]; up != nil {
		authnInfo = allOf(newRemote(up).ready, d.published.check)
	}
	serviceIPs := func(ctx context.Context) error {
		if reg.serves(ctx, registryServiceIPRepair) {
			return reg.check(registryServiceIPRepair)(ctx)
		}
		return reg.check(registryStorageReadiness)(ctx)
	}
	autoregistration := func(ctx context.Context) error {
		_, missing := d.routes.Registered(ctx)
		if len(missing) > 0 {
			return fmt.Errorf("not in the merged discovery, not answering: %s", strings.Join(missing, ", "))
		}
		return nil
	}
	hooks := []*health.Hook{
		health.NewHook("poststarthook/start-apiserver-admission-initializer", admission),
		health.NewHook("poststarthook/generic-apiserver-start-informers", informers),
		health.NewHook("poststarthook/storage-readiness", reg.check(registryStorageReadiness)),
		health.NewHook("poststarthook/start-apiextensions-informers", crd),
		health.NewHook("poststarthook/start-apiextensions-controllers", api.crdControllers.get),
		health.NewHook("poststarthook/crd-informer-synced", crd),
		health.NewHook("poststarthook/bootstrap-controller", bootstrap),
		health.NewHook("poststarthook/start-system-namespaces-controller", allOf(etcd, api.namespacesWritten.get)),
		health.NewHook("poststarthook/start-service-ip-repair-controllers", serviceIPs),
		health.NewHook("poststarthook/scheduling/bootstrap-system-priority-classes", allOf(etcd, api.priorityClassesWritten.get)),
		health.NewHook("poststarthook/start-cluster-authentication-info-controller", authnInfo),
		health.NewHook("poststarthook/start-kube-aggregator-informers", ignoreCtx(d.ctrl.InformerSynced)),
		health.NewHook("poststarthook/apiservice-registration-controller", ignoreCtx(d.ctrl.Registered)),
		health.NewHook("poststarthook/apiservice-status-local-available-controller", ignoreCtx(d.ctrl.LocalAvailable)),
		health.NewHook("poststarthook/apiservice-status-remote-available-controller", ignoreCtx(d.ctrl.RemoteChecked)),
		health.NewHook("poststarthook/kube-apiserver-autoregistration", autoregistration),
		health.NewHook("autoregister-completion", allOf(autoregistration, apiServicesComplete(d.routes, d.ctrl))),
		health.NewHook("poststarthook/apiservice-openapi-controller", openAPIServed(d.registry)),
	}
	live = []health.Check{d.log.Check(), {Name: "etcd", Func: etcd}}
	ready = []health.Check{{Name: "informer-sync", Func: informers}}
	for _, h := range hooks {
		live, ready = append(live, h.Live()), append(ready, h.Ready())
	}
	for _, name := range slices.Sorted(maps.Keys(d.ups)) {
		ready = append(ready, health.Check{Name: "upstream-" + name, Func: upstreamReady(d.ups[name])})
	}
	if d.admission != nil {
		ready = append(ready, health.Check{Name: "upstream-admission", Func: upstreamReady(d.admission)})
	}
	return live, ready
}

// upstreamReady passes while some endpoint of u is in rotation.
func upstreamReady(u *upstream.Upstream) func(context.Context) error {
	return func(context.Context) error {
		eps := u.Endpoints()
		for _, ep := range eps {
			if ep.Healthy {
				return nil
			}
		}
		if len(eps) == 0 {
			return errors.New("no endpoint")
		}
		return fmt.Errorf("no healthy endpoint of %d: %v", len(eps), eps[0].Err)
	}
}

// allOf passes when every check does, and fails with the first failure.
// They run one after the other: the later ones read what the first ones
// (a shared answer) fetched.
func allOf(checks ...func(context.Context) error) func(context.Context) error {
	return func(ctx context.Context) error {
		for _, c := range checks {
			if err := c(ctx); err != nil {
				return err
			}
		}
		return nil
	}
}

func ignoreCtx(f func() error) func(context.Context) error {
	return func(context.Context) error { return f() }
}

// shared runs fetch for many callers: at most one at a time, within
// remoteTimeout, its result serving every caller for remoteFresh. A caller
// whose context ends first gets its error; the fetch goes on for the rest.
type shared[T any] struct {
	fetch func(context.Context) T
	// failed tells an answer that something is not ready, which serves
	// for failedFresh only; nil: none is.
	failed func(T) bool
	now    func() time.Time

	mu   sync.Mutex
	at   time.Time
	val  T
	has  bool
	wait chan struct{} // closed when the fetch under way ends
}

func (s *shared[T]) get(ctx context.Context) (T, error) {
	now := time.Now
	if s.now != nil {
		now = s.now
	}
	s.mu.Lock()
	if s.has && now().Sub(s.at) < s.freshFor(s.val) {
		v := s.val
		s.mu.Unlock()
		return v, nil
	}
	w := s.wait
	if w == nil {
		w = make(chan struct{})
		s.wait = w
		go func() {
			fctx, cancel := context.WithTimeout(context.Background(), remoteTimeout)
			v := s.fetch(fctx)
			cancel()
			s.mu.Lock()
			s.val, s.at, s.has, s.wait = v, now(), true, nil
			s.mu.Unlock()
			close(w)
		}()
	}
	s.mu.Unlock()
	select {
	case <-w:
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.val, nil
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// freshFor is how long v serves further checks.
func (s *shared[T]) freshFor(v T) time.Duration {
	if s.failed != nil && s.failed(v) {
		return failedFresh
	}
	return remoteFresh
}

// remote reads the named checks of every endpoint of an upstream from its
// /readyz?verbose, which every kubesplit service serves without
// credentials.
type remote struct {
	up     *upstream.Upstream
	answer shared[[]endpointChecks]
}

// endpointChecks is what one endpoint answered.
type endpointChecks struct {
	url    string
	err    error            // the answer could not be read
	ready  bool             // its /readyz passed as a whole
	checks map[string]error // by name; nil for a check that passed
}

func newRemote(up *upstream.Upstream) *remote {
	r := &remote{up: up}
	r.answer.fetch = r.fetch
	r.answer.failed = func(eps []endpointChecks) bool {
		return slices.ContainsFunc(eps, func(ep endpointChecks) bool { return !ep.ready })
	}
	return r
}

// fetch asks every endpoint at once.
func (r *remote) fetch(ctx context.Context) []endpointChecks {
	eps := r.up.Endpoints()
	out := make([]endpointChecks, len(eps))
	var wg sync.WaitGroup
	for i, ep := range eps {
		wg.Go(func() { out[i] = r.fetchOne(ctx, ep.URL.String()) })
	}
	wg.Wait()
	return out
}

func (r *remote) fetchOne(ctx context.Context, base string) endpointChecks {
	out := endpointChecks{url: base}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/readyz?verbose", nil)
	if err != nil {
		out.err = err
		return out
	}
	resp, err := r.up.Transport().RoundTrip(req)
	if err != nil {
		out.err = err
		return out
	}
	defer resp.Body.Close()
	out.ready = resp.StatusCode == http.StatusOK
	out.checks, out.err = health.ParseVerbose(resp.Body, maxVerboseBody)
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxVerboseBody))
	if out.err == nil && len(out.checks) == 0 {
		out.err = fmt.Errorf("/readyz?verbose answered %s with no checks", resp.Status)
	}
	return out
}

// answers is the endpoints' answers, or why there are none.
func (r *remote) answers(ctx context.Context) ([]endpointChecks, error) {
	eps, err := r.answer.get(ctx)
	if err != nil {
		return nil, err
	}
	if len(eps) == 0 {
		return nil, fmt.Errorf("no endpoint of %s found", r.up.Name())
	}
	return eps, nil
}

// check passes while some endpoint's check name passes; its failure says
// what each endpoint said.
func (r *remote) check(name string) func(context.Context) error {
	return func(ctx context.Context) error {
		eps, err := r.answers(ctx)
		if err != nil {
			return err
		}
		var why []string
		for _, ep := range eps {
			cerr, listed := ep.checks[name]
			switch {
			case ep.err != nil:
				why = append(why, fmt.Sprintf("%s: %v", ep.url, ep.err))
			case !listed:
				why = append(why, fmt.Sprintf("%s: no check %q", ep.url, name))
			case cerr != nil:
				why = append(why, fmt.Sprintf("%s: %s: %v", ep.url, name, cerr))
			default:
				return nil
			}
		}
		return fmt.Errorf("%s %s", r.up.Name(), strings.Join(why, "; "))
	}
}

// ready passes while some endpoint's /readyz passes as a whole.
func (r *remote) ready(ctx context.Context) error {
	eps, err := r.answers(ctx)
	if err != nil {
		return err
	}
	var why []string
	for _, ep := range eps {
		if ep.err == nil && ep.ready {
			return nil
		}
		if ep.err != nil {
			why = append(why, fmt.Sprintf("%s: %v", ep.url, ep.err))
			continue
		}
		var failed []string
		for name, cerr := range ep.checks {
			if cerr != nil {
				failed = append(failed, fmt.Sprintf("%s: %v", name, cerr))
			}
		}
		slices.Sort(failed)
		why = append(why, fmt.Sprintf("%s: not ready: %s", ep.url, strings.Join(failed, ", ")))
	}
	return fmt.Errorf("%s %s", r.up.Name(), strings.Join(why, "; "))
}

// serves reports whether some endpoint that answered lists check name.
func (r *remote) serves(ctx context.Context, name string) bool {
	eps, _ := r.answers(ctx)
	for _, ep := range eps {
		if _, ok := ep.checks[name]; ok {
			return true
		}
	}
	return false
}

// apiReads are the checks that read objects through the registry, as the
// aggregator itself. What the bootstrap writes is looked for until it has
// been seen once; the registry keeps it (an administrator's change
// included) and the hooks' ready form asks etcd for the present.
type apiReads struct {
	kube                                                        kubernetes.Interface
	bootstrapWritten, namespacesWritten, priorityClassesWritten *seenOnce
	crdControllers                                              *sharedErr
}

func newAPIReads(kube kubernetes.Interface) *apiReads {
	a := &apiReads{kube: kube}
	a.bootstrapWritten = &seenOnce{s: newSharedErr(a.bootstrap)}
	a.namespacesWritten = &seenOnce{s: newSharedErr(a.namespaces)}
	a.priorityClassesWritten = &seenOnce{s: newSharedErr(a.priorityClasses)}
	a.crdControllers = newSharedErr(a.leaseHeld)
	return a
}

// namespaces finds the system namespaces, Active.
func (a *apiReads) namespaces(ctx context.Context) error {
	return each(ctx, systemNamespaces, func(ctx context.Context, name string) error {
		ns, err := a.kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		if err == nil && ns.Status.Phase != corev1.NamespaceActive {
			err = fmt.Errorf("namespace %s is %s", name, ns.Status.Phase)
		}
		return err
	})
}

// priorityClasses finds the system PriorityClasses.
func (a *apiReads) priorityClasses(ctx context.Context) error {
	return each(ctx, systemPriorityClasses, func(ctx context.Context, name string) error {
		_, err := a.kube.SchedulingV1().PriorityClasses().Get(ctx, name, metav1.GetOptions{})
		return err
	})
}

// bootstrap finds what each step of the registry's bootstrap writes, in
// its order: the namespaces, kube's RBAC policy, the PriorityClasses, then
// API Priority and Fairness's configuration, up to the FlowSchema it
// writes last. The steps stop at the first failure, so the last one's
// objects mean the ones before were written.
func (a *apiReads) bootstrap(ctx context.Context) error {
	if err := a.namespaces(ctx); err != nil {
		return err
	}
	rbac, fc := a.kube.RbacV1(), a.kube.FlowcontrolV1()
	reads := []func(context.Context) error{
		func(ctx context.Context) error {
			_, err := rbac.ClusterRoles().Get(ctx, "cluster-admin", metav1.GetOptions{})
			return err
		},
		func(ctx context.Context) error {
			_, err := rbac.ClusterRoleBindings().Get(ctx, "cluster-admin", metav1.GetOptions{})
			return err
		},
		a.priorityClasses,
		func(ctx context.Context) error {
			return each(ctx, []string{"exempt", "catch-all"}, func(ctx context.Context, name string) error {
				_, err := fc.PriorityLevelConfigurations().Get(ctx, name, metav1.GetOptions{})
				return err
			})
		},
		func(ctx context.Context) error {
			return each(ctx, []string{"exempt", "catch-all", "global-default"}, func(ctx context.Context, name string) error {
				_, err := fc.FlowSchemas().Get(ctx, name, metav1.GetOptions{})
				return err
			})
		},
	}
	for _, read := range reads {
		if err := read(ctx); err != nil {
			return err
		}
	}
	return nil
}

// leaseHeld is nil while some replica holds the CRD controllers' Lease and
// renews it in time.
func (a *apiReads) leaseHeld(ctx context.Context) error {
	l, err := a.kube.CoordinationV1().Leases(metav1.NamespaceSystem).Get(ctx, crdControllerLease, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("the CRD controllers' Lease: %w", err)
	}
	s := l.Spec
	if s.HolderIdentity == nil || *s.HolderIdentity == "" || s.RenewTime == nil || s.LeaseDurationSeconds == nil {
		return fmt.Errorf("no registry replica holds the CRD controllers' Lease %s", crdControllerLease)
	}
	late := time.Since(s.RenewTime.Time) - time.Duration(*s.LeaseDurationSeconds)*time.Second
	if late > leaseSlack {
		return fmt.Errorf("the CRD controllers' Lease, held by %s, was last renewed %v ago", *s.HolderIdentity,
			time.Since(s.RenewTime.Time).Round(time.Second))
	}
	return nil
}

// each runs read for every name at once and returns the first failure,
// in names' order.
func each(ctx context.Context, names []string, read func(context.Context, string) error) error {
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { errs[i] = read(ctx, name) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// sharedErr is a shared check.
type sharedErr struct{ s shared[error] }

func newSharedErr(check func(context.Context) error) *sharedErr {
	c := &sharedErr{}
	c.s.fetch = check
	c.s.failed = func(err error) bool { return err != nil }
	return c
}

func (c *sharedErr) get(ctx context.Context) error {
	err, cerr := c.s.get(ctx)
	if cerr != nil {
		return cerr
	}
	return err
}

// seenOnce is a shared check that is not asked again once it has passed.
type seenOnce struct {
	seen atomic.Bool
	s    *sharedErr
}

func (c *seenOnce) get(ctx context.Context) error {
	if c.seen.Load() {
		return nil
	}
	err := c.s.get(ctx)
	if err == nil {
		c.seen.Store(true)
	}
	return err
}

// apiServicesComplete passes when every group version of a custom
// resource the merged discovery lists (those of no built-in group) has
// its APIService, which the registry's CRD controller writes and the
// APIService controller has seen: kube's autoregister-completion.
func apiServicesComplete(routes *discovery.Handler, ctrl *apiservice.Controller) func(context.Context) error {
	builtin := map[schema.GroupVersion]bool{}
	for _, gv := range scheme.Scheme.PrioritizedVersionsAllGroups() {
		builtin[gv] = true
	}
	// Built into kube-apiserver, and the registry, without being in
	// client-go's scheme: its extensions' and its aggregator's APIs.
	builtin[schema.GroupVersion{Group: "apiextensions.k8s.io", Version: "v1"}] = true
	builtin[schema.GroupVersion{Group: "apiregistration.k8s.io", Version: "v1"}] = true
	return func(ctx context.Context) error {
		groups, _ := routes.Registered(ctx)
		var missing []string
		for _, g := range groups {
			for _, v := range g.Versions {
				if builtin[schema.GroupVersion{Group: g.Name, Version: v.Version}] {
					continue
				}
				known, synced := ctrl.Known(v.Version + "." + g.Name)
				if !synced {
					return errors.New("the APIServices have not been synced yet")
				}
				if !known {
					missing = append(missing, v.Version+"."+g.Name)
				}
			}
		}
		if len(missing) > 0 {
			slices.Sort(missing)
			return fmt.Errorf("served but without an APIService: %s", strings.Join(missing, ", "))
		}
		return nil
	}
}

// openAPIServed passes while the registry serves the OpenAPI v3 index,
// asked as the aggregator itself.
func openAPIServed(registry discovery.Backend) func(context.Context) error {
	s := newSharedErr(func(ctx context.Context) error {
		resp, err := registry.Get(request.WithUser(ctx, selfUser), "/openapi/v3")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxVerboseBody))
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("the registry's /openapi/v3 answered %s", resp.Status)
		}
		return nil
	})
	return s.get
}

// publication is the outcome of the last write of the
// extension-apiserver-authentication ConfigMap.
type publication struct {
	last atomic.Pointer[error]
}

func (p *publication) report(err error) { p.last.Store(&err) }

func (p *publication) check(context.Context) error {
	last := p.last.Load()
	switch {
	case last == nil:
		return fmt.Errorf("%s/%s not written yet", apiservice.AuthenticationNamespace, apiservice.AuthenticationConfigMap)
	case *last != nil:
		return fmt.Errorf("%s/%s not written: %w", apiservice.AuthenticationNamespace, apiservice.AuthenticationConfigMap, *last)
	}
	return nil
}
