package apiservice

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesplit/kubesplit/services/aggregator/internal/discovery"
)

// DefaultSyncEvery is how often the controller compares backends' health
// with the APIServices' conditions when nothing changed.
const DefaultSyncEvery = time.Second

// Routes is what the controller installs APIServices into;
// *discovery.Handler is one.
type Routes interface {
	SetAPIServices([]discovery.APIService) error
}

// Config configures a Controller.
type Config struct {
	// Client reads and watches APIServices and writes their status, as
	// the aggregator itself. Required.
	Client dynamic.Interface
	// Routes receives the APIServices with a backend. Required.
	Routes Routes
	// ProxyClientCert is presented to every backend, which checks it
	// against the requestheader CA; nil presents none.
	ProxyClientCert *tls.Certificate
	// SyncEvery is how often conditions are brought up to date; zero
	// means DefaultSyncEvery.
	SyncEvery time.Duration
	// Log receives backends' changes; nil means slog.Default().
	Log *slog.Logger
}

// Controller keeps the aggregator's routes and the APIServices' Available
// conditions in step with the APIServices in the registry.
type Controller struct {
	client    dynamic.Interface
	routes    Routes
	cert      *tls.Certificate
	syncEvery time.Duration
	log       *slog.Logger

	// state is what the health checks read (health.go).
	state state

	// Owned by Run's goroutine.
	backends  map[string]*backend
	broken    map[string]error // APIServices whose backend cannot be built
	installed string           // what was last given to Routes
}

// New returns a controller for cfg; Run starts it.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Routes == nil {
		return nil, fmt.Errorf("%w: a client and routes are required", ErrInvalidConfig)
	}
	if cfg.SyncEvery < 0 {
		return nil, fmt.Errorf("%w: negative SyncEvery", ErrInvalidConfig)
	}
	if cfg.SyncEvery == 0 {
		cfg.SyncEvery = DefaultSyncEvery
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Controller{
		client: cfg.Client, routes: cfg.Routes, cert: cfg.ProxyClientCert, syncEvery: cfg.SyncEvery, log: cfg.Log,
		backends: map[string]*backend{}, broken: map[string]error{},
	}, nil
}

// Run watches APIServices until ctx is done, then stops every backend.
func (c *Controller) Run(ctx context.Context) {
	informer := dynamicinformer.NewFilteredDynamicInformer(c.client, GVR, "", 0, cache.Indexers{}, nil).Informer()
	changed := make(chan struct{}, 1)
	kick := func(any) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: kick, UpdateFunc: func(_, o any) { kick(o) }, DeleteFunc: kick,
	})
	synced := informer.HasSynced
	c.state.informerSynced.Store(&synced)
	go informer.RunWithContext(ctx)
	// The first sync follows the informer's at once, with no APIService
	// to announce it, so that the routes and the health checks do not
	// wait for a tick.
	go func() {
		if cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
			kick(nil)
		}
	}()
	tick := time.NewTicker(c.syncEvery)
	defer tick.Stop()
	defer c.stopAll()
	for {
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-tick.C:
		}
		if informer.HasSynced() {
			c.sync(ctx, informer.GetStore().List())
		}
	}
}

// sync brings backends, routes and conditions in step with objs.
func (c *Controller) sync(ctx context.Context, objs []any) {
	var svcs []*apiService
	var raws []*unstructured.Unstructured
	for _, o := range objs {
		u, ok := o.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		s, err := decode(u)
		if err != nil {
			c.log.Warn("APIService ignored", "err", err)
			continue
		}
		svcs, raws = append(svcs, s), append(raws, u)
	}
	c.reconcileBackends(ctx, svcs)
	installErr := c.install(svcs)
	for i, s := range svcs {
		if want, known := availability(s, c.backends[s.Name], c.broken[s.Name]); known {
			c.writeStatus(ctx, raws[i], s, want)
		}
	}
	c.publishStatus(svcs, installErr)
}

// reconcileBackends builds a backend for every APIService with a service
// whose backend is missing or outdated, and stops those of the others.
func (c *Controller) reconcileBackends(ctx context.Context, svcs []*apiService) {
	keep := map[string]bool{}
	for _, s := range svcs {
		if s.Spec.Service == nil {
			continue
		}
		keep[s.Name] = true
		if b := c.backends[s.Name]; b != nil && b.key == backendKey(s) {
			continue
		}
		c.stop(s.Name)
		b, err := newBackend(ctx, s, c.cert, c.log)
		if err != nil {
			c.broken[s.Name] = err
			continue
		}
		c.log.Info("APIService backend", "apiservice", s.Name, "group", s.Spec.Group, "version", s.Spec.Version)
		c.backends[s.Name] = b
	}
	for name := range c.backends {
		if !keep[name] {
			c.stop(name)
		}
	}
	for name := range c.broken {
		if !keep[name] {
			delete(c.broken, name)
		}
	}
}

// install gives Routes the APIServices with a service, when they changed,
// and returns why they could not be.
func (c *Controller) install(svcs []*apiService) error {
	var list []discovery.APIService
	var keys []string
	for _, s := range svcs {
		if s.Spec.Service == nil {
			// Served by the upstreams, but its coming or going (a CRD's
			// group) still changes the merged discovery: counted in the
			// key, so that Routes hears of it.
			keys = append(keys, "local "+s.Name)
			continue
		}
		d := discovery.APIService{
			Name: s.Name, Group: s.Spec.Group, Version: s.Spec.Version,
			GroupPriorityMinimum: s.Spec.GroupPriorityMinimum, VersionPriority: s.Spec.VersionPriority,
		}
		key := fmt.Sprintf("%+v", d)
		if b := c.backends[s.Name]; b != nil {
			d.Backend, key = b.proxy, key+b.key
		} else {
			d.Backend, key = unusable{c.broken[s.Name]}, key+c.broken[s.Name].Error()
		}
		list, keys = append(list, d), append(keys, key)
	}
	slices.Sort(keys)
	if joined := strings.Join(keys, "\n"); joined != c.installed {
		if err := c.routes.SetAPIServices(list); err != nil {
			c.log.Warn("APIServices not installed", "err", err)
			return err
		}
		c.installed = joined
	}
	return nil
}

func (c *Controller) stop(name string) {
	if b := c.backends[name]; b != nil {
		b.cancel()
		delete(c.backends, name)
	}
	delete(c.broken, name)
}

func (c *Controller) stopAll() {
	for name := range c.backends {
		c.stop(name)
	}
}
