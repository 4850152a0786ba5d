package health

import (
	"context"
	"sync/atomic"
)

// Hook is a check in the form of kube's post-start hooks: something that
// has to happen once (a bootstrap written, an informer synced), whose
// state can be lost again (the service holding it is down). Its Ready
// check says how it stands now; its Live check passes once it has passed,
// here or on Ready, as a kube post-start hook never un-completes, so that a
// liveness probe does not restart this process for another's outage.
// Served with Probes, Live in the live checks and Ready in the ready ones,
// /livez and /healthz list the one and /readyz the other under one name.
type Hook struct {
	name  string
	state func(context.Context) error
	done  atomic.Bool
}

// NewHook returns the hook named name whose current state state tells.
func NewHook(name string, state func(context.Context) error) *Hook {
	return &Hook{name: name, state: state}
}

// Name is the hook's check name.
func (h *Hook) Name() string { return h.name }

// Ready is the check of the current state; a pass is remembered.
func (h *Hook) Ready() Check {
	return Check{Name: h.name, Func: func(ctx context.Context) error {
		err := h.state(ctx)
		if err == nil {
			h.done.Store(true)
		}
		return err
	}}
}

// Live passes once the state has passed; until then it asks the state.
func (h *Hook) Live() Check {
	ready := h.Ready()
	return Check{Name: h.name, Func: func(ctx context.Context) error {
		if h.done.Load() {
			return nil
		}
		return ready.Func(ctx)
	}}
}
