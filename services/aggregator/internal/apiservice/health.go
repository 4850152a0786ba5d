package apiservice

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
)

// state is what the controller has done, published for the aggregator's
// health checks (kube's aggregator's post-start hooks) without touching
// what Run's goroutine owns.
type state struct {
	// informerSynced is the APIService informer's HasSynced, once Run
	// has made it.
	informerSynced atomic.Pointer[func() bool]
	// last is what the last sync found.
	last atomic.Pointer[syncState]
}

// syncState is the outcome of one sync.
type syncState struct {
	names      map[string]bool // the APIServices synced
	installErr error           // why Routes refused them, if it did
	// localUnavailable are the local APIServices whose Available
	// condition was not True in what was synced; remoteUnchecked the
	// ones with a service whose backend had not been checked yet.
	localUnavailable, remoteUnchecked []string
}

// publishStatus records the outcome of the sync of svcs.
func (c *Controller) publishStatus(svcs []*apiService, installErr error) {
	st := &syncState{names: map[string]bool{}, installErr: installErr}
	for _, s := range svcs {
		st.names[s.Name] = true
		if s.Spec.Service == nil {
			if a := s.available(); a == nil || a.Status != statusTrue {
				st.localUnavailable = append(st.localUnavailable, s.Name)
			}
			continue
		}
		if b := c.backends[s.Name]; b != nil && !b.checked.Load() {
			st.remoteUnchecked = append(st.remoteUnchecked, s.Name)
		}
	}
	slices.Sort(st.localUnavailable)
	slices.Sort(st.remoteUnchecked)
	c.state.last.Store(st)
}

// errNotSynced is every check's answer before the first sync.
var errNotSynced = errors.New("the APIServices have not been synced yet")

// InformerSynced is kube's start-kube-aggregator-informers: the
// APIService informer has listed the APIServices in the registry.
func (c *Controller) InformerSynced() error {
	if f := c.state.informerSynced.Load(); f == nil || !(*f)() {
		return errors.New("the APIService informer has not synced")
	}
	return nil
}

// Registered is kube's apiservice-registration-controller: the
// APIServices have been synced into the routes, and the last change was
// installed.
func (c *Controller) Registered() error {
	st := c.state.last.Load()
	switch {
	case st == nil:
		return errNotSynced
	case st.installErr != nil:
		return fmt.Errorf("APIServices not installed: %w", st.installErr)
	}
	return nil
}

// LocalAvailable is kube's apiservice-status-local-available-controller:
// every local APIService (served by kubesplit's own upstreams) has been
// marked Available.
func (c *Controller) LocalAvailable() error {
	st := c.state.last.Load()
	switch {
	case st == nil:
		return errNotSynced
	case len(st.localUnavailable) > 0:
		return fmt.Errorf("local APIServices not marked Available yet: %s", list(st.localUnavailable))
	}
	return nil
}

// RemoteChecked is kube's apiservice-status-remote-available-controller:
// the backend of every APIService with a service has been checked, so
// its Available condition says how it is. An unavailable backend does not
// fail it, as it does not fail kube's: that is the APIService's status.
func (c *Controller) RemoteChecked() error {
	st := c.state.last.Load()
	switch {
	case st == nil:
		return errNotSynced
	case len(st.remoteUnchecked) > 0:
		return fmt.Errorf("APIService backends not checked yet: %s", list(st.remoteUnchecked))
	}
	return nil
}

// Known reports whether the last sync saw the APIService named name.
func (c *Controller) Known(name string) (known, synced bool) {
	st := c.state.last.Load()
	if st == nil {
		return false, false
	}
	return st.names[name], true
}

// list names at most a few items, so that a message stays a line.
func list(names []string) string {
	const most = 5
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
}
