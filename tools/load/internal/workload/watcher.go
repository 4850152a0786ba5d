package workload

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesplit/kubesplit/tools/load/internal/stats"
)

// maxReopens bounds how often one watcher resumes a watch the server closed,
// so a server that drops every watch at once ends the run instead of
// spinning until the timeout.
const maxReopens = 10

// errTooManyReopens ends a watcher whose watch the server keeps closing.
var errTooManyReopens = errors.New("the server closed the watch too many times")

// watcher is one watch on the namespace, counting the updates of the target
// ConfigMap it receives and how long each took to arrive. Its fields are
// its goroutine's alone until done is closed.
type watcher struct {
	env     *Env
	target  string
	updates int
	timeout int64 // server-side watch timeout, in seconds

	ready    chan struct{} // closed when the target's creation arrives
	complete chan struct{} // closed when every update has arrived
	done     chan struct{} // closed when the watcher stops
	err      error         // why it stopped early; read after done

	lastRV    string // where to resume if the server ends the watch
	seen      []bool // by seq: updates already counted
	delivered uint64
	latency   stats.Histogram
}

func newWatcher(env *Env, target string, updates int, timeout time.Duration) *watcher {
	return &watcher{
		env:      env,
		target:   target,
		updates:  updates,
		timeout:  int64(timeout.Seconds()) + 1,
		ready:    make(chan struct{}),
		complete: make(chan struct{}),
		done:     make(chan struct{}),
		seen:     make([]bool, updates+1),
	}
}

// open starts a watch from resourceVersion rv, so nothing written after rv
// is missed however long the watch takes to set up.
func (w *watcher) open(ctx context.Context, rv string) (watch.Interface, error) {
	w.lastRV = rv
	return w.env.Client.CoreV1().ConfigMaps(w.env.Namespace).Watch(ctx, metav1.ListOptions{
		ResourceVersion:     rv,
		AllowWatchBookmarks: true, // keeps lastRV fresh while other objects are quiet
		TimeoutSeconds:      &w.timeout,
	})
}

// run consumes wi, and the watches that resume it, until ctx ends or the
// watch fails.
func (w *watcher) run(ctx context.Context, wi watch.Interface) {
	defer close(w.done)
	for reopens := 0; ; reopens++ {
		err := w.drain(ctx, wi)
		wi.Stop()
		if err != nil || ctx.Err() != nil {
			w.err = err
			return
		}
		if reopens == maxReopens {
			w.err = errTooManyReopens
			return
		}
		// The server ended the watch (its timeout, a restart): resume.
		if wi, err = w.open(ctx, w.lastRV); err != nil {
			if ctx.Err() == nil {
				w.err = fmt.Errorf("reopen watch at %s: %w", w.lastRV, err)
			}
			return
		}
	}
}

// drain handles wi's events until its channel closes or ctx ends.
func (w *watcher) drain(ctx context.Context, wi watch.Interface) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-wi.ResultChan():
			if !ok {
				return nil
			}
			if err := w.handle(ev, time.Now()); err != nil {
				return err
			}
		}
	}
}

// handle takes one event that arrived at now.
func (w *watcher) handle(ev watch.Event, now time.Time) error {
	if ev.Type == watch.Error {
		return fmt.Errorf("watch error: %w", apierrors.FromObject(ev.Object))
	}
	if m, err := meta.Accessor(ev.Object); err == nil && m.GetResourceVersion() != "" {
		w.lastRV = m.GetResourceVersion()
	}
	cm, ok := ev.Object.(*corev1.ConfigMap)
	if !ok || cm.Name != w.target || (ev.Type != watch.Added && ev.Type != watch.Modified) {
		return nil
	}
	select {
	case <-w.ready:
	default:
		close(w.ready)
	}
	seq, err := strconv.Atoi(cm.Data[keySeq])
	if err != nil || seq < 1 || seq > w.updates || w.seen[seq] {
		return nil // the creation, or a repeat after a resume
	}
	sent, err := strconv.ParseInt(cm.Data[keySent], 10, 64)
	if err != nil {
		return nil
	}
	w.seen[seq] = true
	w.delivered++
	w.latency.Record(now.Sub(time.Unix(0, sent)))
	if w.delivered == uint64(w.updates) {
		close(w.complete)
	}
	return nil
}
