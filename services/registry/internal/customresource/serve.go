package customresource

import (
	"context"
	"encoding/json"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// Handler is what serves the resources: the registry's handler, which
// takes stores arriving and leaving at run time.
type Handler interface {
	Add(*storage.Store)
	Remove(schema.GroupVersionResource)
}

// Serving keeps the custom resources served in step with the CRDs in
// storage. Every registry replica runs one, fed by its own cache of CRDs,
// so every replica serves a CRD as soon as its names are accepted; the
// conditions themselves are written by one replica's controller.
type Serving struct {
	backend *storage.Backend
	handler Handler
	crds    *storage.Store
	log     *slog.Logger

	mu     sync.Mutex
	served map[string]*served // by CRD name
	// listed are the resources discovery shows: those of established CRDs.
	listed atomic.Pointer[[]*resource.Info]
	// changed is told when listed changes.
	changed func([]*resource.Info)
	// synced is set once the CRDs stored at start are served.
	synced atomic.Bool
}

// Synced reports whether the CRDs that existed when Run started are
// served, as kube's readiness waits for its CRD informer.
func (s *Serving) Synced() bool { return s.synced.Load() }

// served is one CRD's resources as currently served.
type served struct {
	fingerprint string
	stores      []*storage.Store
	established bool
	// terminating refuses creates once the CRD is being deleted.
	terminating atomic.Bool
}

// NewServing returns a Serving over the CRD store; nothing happens until
// Run.
func NewServing(backend *storage.Backend, handler Handler, crds *storage.Store, log *slog.Logger) *Serving {
	return NewServingNotify(backend, handler, crds, log, nil)
}

// NewServingNotify is NewServing telling changed, from one goroutine at a
// time, the resources discovery lists whenever they change (for the
// OpenAPI documents).
func NewServingNotify(backend *storage.Backend, handler Handler, crds *storage.Store, log *slog.Logger,
	changed func([]*resource.Info)) *Serving {
	if log == nil {
		log = slog.Default()
	}
	s := &Serving{backend: backend, handler: handler, crds: crds, log: log, served: map[string]*served{}, changed: changed}
	s.listed.Store(&[]*resource.Info{})
	return s
}

// Resources are the custom resources discovery lists.
func (s *Serving) Resources() []*resource.Info { return *s.listed.Load() }

// Run follows the CRDs until ctx ends, watching again from the current
// state whenever its watch ends.
func (s *Serving) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := s.follow(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("watching CustomResourceDefinitions", "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range s.served {
		s.stop(name)
	}
}

// follow serves every CRD there is, then each change, until the watch
// ends.
func (s *Serving) follow(ctx context.Context) error {
	w, err := s.crds.Watch(ctx, "", storage.WatchOptions{})
	if err != nil {
		return err
	}
	defer w.Stop()
	seen := map[string]bool{}
	for _, ev := range w.Initial {
		seen[ev.Object.Name()] = true
		s.apply(ev)
	}
	s.mu.Lock()
	for name := range s.served {
		if !seen[name] {
			s.stop(name)
		}
	}
	s.publish()
	s.mu.Unlock()
	s.synced.Store(true)
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Type == watch.Error {
				return ev.Err
			}
			s.apply(ev)
		}
	}
}

// apply serves, re-serves or stops serving the CRD an event is about.
func (s *Serving) apply(ev storage.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.publish()
	name := ev.Object.Name()
	if ev.Type == watch.Deleted {
		s.stop(name)
		return
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(ev.Object.Decode().Object, crd); err != nil {
		s.log.Error("undecodable CustomResourceDefinition", "name", name, "err", err)
		return
	}
	if !conditionTrue(crd, apiextensionsv1.NamesAccepted) {
		// Kube serves only accepted names: until the controller has
		// checked them, nothing is served.
		s.stop(name)
		return
	}
	established := conditionTrue(crd, apiextensionsv1.Established)
	fp := fingerprint(crd)
	if cur := s.served[name]; cur != nil && cur.fingerprint == fp {
		cur.established = established
		cur.terminating.Store(crd.DeletionTimestamp != nil)
		return
	}
	if err := s.serve(crd, fp, established); err != nil {
		s.log.Error("CustomResourceDefinition not served", "name", name, "err", err)
		s.stop(name)
	}
}

// serve (re)starts serving a CRD's versions, each over a store of its own
// on the same keys. Callers hold s.mu.
func (s *Serving) serve(crd *apiextensionsv1.CustomResourceDefinition, fp string, established bool) error {
	infos, err := Infos(crd)
	if err != nil {
		return err
	}
	conv, err := newConverter(crd)
	if err != nil {
		return err
	}
	s.stop(crd.Name)
	sv := &served{fingerprint: fp, established: established}
	sv.terminating.Store(crd.DeletionTimestamp != nil)
	opts := storage.StoreOptions{StorageVersion: storageVersion(crd)}
	if conv != nil {
		opts.Convert = func(obj map[string]any, apiVersion string) (map[string]any, error) {
			return conv.Convert(context.Background(), obj, apiVersion)
		}
	}
	for _, info := range infos {
		info.Refuse = sv.refuse(info)
		o := opts
		o.Read = info.Default
		st := s.backend.NewClosableStore(info, o)
		s.handler.Add(st)
		sv.stores = append(sv.stores, st)
	}
	s.served[crd.Name] = sv
	s.log.Info("serving custom resources", "crd", crd.Name, "versions", len(infos))
	return nil
}

// refuse is kube's answer to a create while the CRD is being deleted.
func (sv *served) refuse(info *resource.Info) func(verb, name string) error {
	gr := schema.GroupResource{Group: info.Group, Resource: info.Resource}
	return func(verb, _ string) error {
		if verb == "create" && sv.terminating.Load() {
			return apierrors.NewMethodNotSupported(gr, verb)
		}
		return nil
	}
}

// stop ends the serving of a CRD's resources. Callers hold s.mu.
func (s *Serving) stop(name string) {
	sv := s.served[name]
	if sv == nil {
		return
	}
	delete(s.served, name)
	for _, st := range sv.stores {
		s.handler.Remove(st.Info().GroupVersionResource())
		st.Close()
	}
}

// publish recomputes what discovery lists. Callers hold s.mu.
func (s *Serving) publish() {
	var infos []*resource.Info
	for _, sv := range s.served {
		if !sv.established {
			continue
		}
		for _, st := range sv.stores {
			infos = append(infos, st.Info())
		}
	}
	sort.Slice(infos, func(i, j int) bool {
		a, b := infos[i], infos[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			// Kube's version order, newest first: the preferred version
			// leads.
			return version.CompareKubeAwareVersionStrings(a.Version, b.Version) > 0
		}
		return a.Resource < b.Resource
	})
	old := s.listed.Swap(&infos)
	if s.changed != nil && !sameInfos(*old, infos) {
		s.changed(infos)
	}
}

// sameInfos reports whether two published lists hold the same resources.
func sameInfos(a, b []*resource.Info) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// storageVersion is the apiVersion every object of the CRD is kept at.
func storageVersion(crd *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return crd.Spec.Group + "/" + v.Name
		}
	}
	return ""
}

// fingerprint is what serving depends on: the spec and the accepted
// names. Status changes (conditions, stored versions) change nothing.
func fingerprint(crd *apiextensionsv1.CustomResourceDefinition) string {
	data, _ := json.Marshal([]any{crd.Spec, crd.Status.AcceptedNames})
	return string(data)
}

func conditionTrue(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == t {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}
