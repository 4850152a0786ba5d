package workload

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/tools/load/internal/stats"
)

// WatchConfig is the shape of a watch run.
type WatchConfig struct {
	// Watchers is the number of concurrent watches.
	Watchers int
	// Updates is the number of updates sent to the watched ConfigMap.
	Updates int
	// Duration is the span the updates are spread evenly over, so latency
	// is measured at a steady rate rather than a burst.
	Duration time.Duration
	// Timeout bounds the whole run, from the first watch to the last event.
	Timeout time.Duration
}

// WatchOutcome is what a watch run measured.
type WatchOutcome struct {
	// Writes holds the updates, as requests.
	Writes *stats.Recorder
	// Elapsed is the span from the first update to the last.
	Elapsed time.Duration
	// Delivery holds, per event, the time from just before its update was
	// sent to its arrival at a watcher.
	Delivery stats.Histogram
	// Expected is watchers × updates; Delivered the distinct events received.
	Expected, Delivered uint64
}

// RunWatch opens wc.Watchers watches on the namespace, waits until every one
// has seen a sentinel object's creation (so all are live), then sends
// wc.Updates updates to the sentinel, each stamped with its send time, and
// waits for every watcher to receive all of them or for the timeout.
func RunWatch(ctx context.Context, env *Env, wc WatchConfig) (*WatchOutcome, error) {
	ctx, cancel := context.WithTimeout(ctx, wc.Timeout)
	defer cancel()
	cms := env.Client.CoreV1().ConfigMaps(env.Namespace)
	// Starting every watch at the list's resourceVersion means the
	// sentinel's creation reaches each watch, however late it registers.
	list, err := cms.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, fmt.Errorf("list for a start resourceVersion: %w", err)
	}
	target := "watch-" + env.RunID
	watchCtx, stopWatches := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() { stopWatches(); wg.Wait() }()
	watchers := make([]*watcher, wc.Watchers)
	for i := range watchers {
		w := newWatcher(env, target, wc.Updates, wc.Timeout)
		wi, err := w.open(watchCtx, list.ResourceVersion)
		if err != nil {
			return nil, fmt.Errorf("open watch %d of %d: %w", i+1, wc.Watchers, err)
		}
		watchers[i] = w
		wg.Go(func() { w.run(watchCtx, wi) })
	}
	fmt.Fprintf(env.Log, "%d watches open; waiting for each to see %s\n", wc.Watchers, target)
	cm, err := cms.Create(ctx, env.configMap(target), metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create watched ConfigMap: %w", err)
	}
	if err := awaitReady(ctx, watchers); err != nil {
		return nil, err
	}
	fmt.Fprintf(env.Log, "sending %d updates over %s\n", wc.Updates, wc.Duration)
	out := &WatchOutcome{Writes: &stats.Recorder{}, Expected: uint64(wc.Watchers) * uint64(wc.Updates)}
	out.Elapsed = sendUpdates(ctx, env, cm, wc, out.Writes)
	awaitComplete(ctx, env, watchers)
	stopWatches()
	wg.Wait() // the watchers' state is safe to read from here on
	for _, w := range watchers {
		out.Delivered += w.delivered
		out.Delivery.Merge(&w.latency)
	}
	return out, nil
}

// awaitReady waits until every watcher has seen the sentinel, and fails if
// one stopped first: without it the expected count is unreachable.
func awaitReady(ctx context.Context, watchers []*watcher) error {
	for i, w := range watchers {
		select {
		case <-w.ready:
		case <-w.done:
			return fmt.Errorf("watch %d stopped before it saw its first event: %v", i+1, w.err)
		case <-ctx.Done():
			return fmt.Errorf("waiting for watch %d to see its first event: %w", i+1, ctx.Err())
		}
	}
	return nil
}

// awaitComplete waits until every watcher has every update, has stopped, or
// the run times out, and logs the watchers that came up short.
func awaitComplete(ctx context.Context, env *Env, watchers []*watcher) {
	for i, w := range watchers {
		select {
		case <-w.complete:
		case <-w.done:
			fmt.Fprintf(env.Log, "watch %d stopped after %d of %d events: %v\n", i+1, w.delivered, w.updates, w.err)
		case <-ctx.Done():
			fmt.Fprintf(env.Log, "timed out waiting for watch events: %v\n", ctx.Err())
			return
		}
	}
}

// sendUpdates writes wc.Updates updates to cm from one writer, each carrying
// its sequence number and send time, paced evenly over wc.Duration. It
// returns the time the writes took.
func sendUpdates(ctx context.Context, env *Env, cm *corev1.ConfigMap, wc WatchConfig, rec *stats.Recorder) time.Duration {
	cms := env.Client.CoreV1().ConfigMaps(env.Namespace)
	interval := wc.Duration / time.Duration(wc.Updates)
	start := time.Now()
	for seq := 1; seq <= wc.Updates; seq++ {
		if wait := time.Until(start.Add(interval * time.Duration(seq-1))); wait > 0 {
			select {
			case <-ctx.Done():
				return time.Since(start)
			case <-time.After(wait):
			}
		}
		next := cm.DeepCopy()
		next.Data = env.data(uint64(seq))
		sent := time.Now()
		next.Data[keySent] = strconv.FormatInt(sent.UnixNano(), 10)
		updated, err := cms.Update(ctx, next, metav1.UpdateOptions{})
		rec.Observe(time.Since(sent), Code(err))
		if err == nil {
			cm = updated
		} else if fresh, gerr := cms.Get(ctx, cm.Name, metav1.GetOptions{}); gerr == nil {
			cm = fresh // the failed write left our resourceVersion unknown
		}
		if ctx.Err() != nil {
			break
		}
	}
	return time.Since(start)
}
