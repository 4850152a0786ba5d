package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/kubesplit/kubesplit/tools/load/internal/config"
	"github.com/kubesplit/kubesplit/tools/load/internal/stats"
)

// RunConfig is the shape of a request loop run.
type RunConfig struct {
	// Op is the workload; any but config.OpWatch.
	Op config.Op
	// Concurrency is the number of workers.
	Concurrency int
	// Duration is how long requests are sent.
	Duration time.Duration
	// QPS caps requests per second over all workers; 0 is no cap.
	QPS float64
}

// Outcome is what a run measured.
type Outcome struct {
	// Elapsed is the measured span: Duration, or less if interrupted.
	Elapsed time.Duration
	// ByOp holds the requests of each kind (get, list, create, update);
	// only kinds that ran have an entry.
	ByOp map[config.Op]*stats.Recorder
}

// drainGrace is how long a request in flight at the end of a run may still
// take. Letting it finish rather than cancelling it spares the server a
// burst of aborted requests at the end of every run.
const drainGrace = 10 * time.Second

// Run sends requests from rc.Concurrency workers until rc.Duration has
// passed or ctx ends. Requests still in flight at the end are not counted,
// so the count covers exactly the measured span.
func Run(ctx context.Context, env *Env, fx *Fixture, rc RunConfig) (*Outcome, error) {
	kinds := kindsOf(rc.Op)
	if kinds == nil {
		return nil, fmt.Errorf("op %q is not a request loop", rc.Op)
	}
	if err := checkSeeds(rc, len(fx.Seeded)); err != nil {
		return nil, err
	}
	recs := make(map[config.Op]*stats.Recorder, len(kinds))
	for _, k := range kinds {
		recs[k] = &stats.Recorder{}
	}
	var limiter *rate.Limiter
	if rc.QPS > 0 {
		limiter = rate.NewLimiter(rate.Limit(rc.QPS), 1)
	}
	fmt.Fprintf(env.Log, "running %s for %s with %d workers\n", rc.Op, rc.Duration, rc.Concurrency)
	start := time.Now()
	win := window{}
	var cancelMeasure, cancelRequests context.CancelFunc
	win.measuring, cancelMeasure = context.WithDeadline(ctx, start.Add(rc.Duration))
	defer cancelMeasure()
	win.requests, cancelRequests = context.WithDeadline(ctx, start.Add(rc.Duration+drainGrace))
	defer cancelRequests()
	var wg sync.WaitGroup
	for id := range rc.Concurrency {
		w := newWorker(env, fx.Seeded, id, rc.Concurrency)
		wg.Go(func() { w.loop(win, rc.Op, limiter, recs) })
	}
	<-win.measuring.Done()
	elapsed := min(time.Since(start), rc.Duration)
	wg.Wait()
	return &Outcome{Elapsed: elapsed, ByOp: recs}, nil
}

// window is the span of a run as two contexts: requests are started and
// counted while measuring lasts, and each may run until requests ends.
type window struct {
	measuring, requests context.Context
}

// kindsOf lists the request kinds op sends, nil if it is not a request loop.
func kindsOf(op config.Op) []config.Op {
	switch op {
	case config.OpGet, config.OpList, config.OpCreate, config.OpUpdate:
		return []config.Op{op}
	case config.OpMixed:
		return []config.Op{config.OpGet, config.OpList, config.OpUpdate, config.OpCreate}
	}
	return nil
}

// checkSeeds makes sure every worker will find the objects it needs: get
// needs one to read, update one of its own to write.
func checkSeeds(rc RunConfig, seeded int) error {
	if rc.Op.Seeds() && seeded == 0 {
		return fmt.Errorf("op %s needs seeded objects, have none", rc.Op)
	}
	if (rc.Op == config.OpUpdate || rc.Op == config.OpMixed) && seeded < rc.Concurrency {
		return fmt.Errorf("op %s needs an object per worker: %d objects for %d workers", rc.Op, seeded, rc.Concurrency)
	}
	return nil
}

// pick chooses the kind of the next request.
func pick(op config.Op) config.Op {
	if op != config.OpMixed {
		return op
	}
	switch r := rand.IntN(100); {
	case r < 70:
		return config.OpGet
	case r < 80:
		return config.OpList
	case r < 90:
		return config.OpUpdate
	default:
		return config.OpCreate
	}
}

// loop sends requests until the measured span ends, recording each in recs
// by kind.
func (w *worker) loop(win window, op config.Op, limiter *rate.Limiter, recs map[config.Op]*stats.Recorder) {
	for win.measuring.Err() == nil {
		if limiter != nil && limiter.Wait(win.measuring) != nil {
			return
		}
		kind := pick(op)
		if kind == config.OpUpdate {
			w.prepareUpdate(win.requests)
		}
		start := time.Now()
		err := w.do(win.requests, kind)
		took := time.Since(start)
		if win.measuring.Err() != nil {
			return // finished after the end, or interrupted: not counted
		}
		recs[kind].Observe(took, Code(err))
	}
}

// do sends one request of the given kind.
func (w *worker) do(ctx context.Context, kind config.Op) error {
	switch kind {
	case config.OpGet:
		return w.get(ctx)
	case config.OpList:
		return w.list(ctx)
	case config.OpCreate:
		return w.create(ctx)
	case config.OpUpdate:
		return w.update(ctx)
	}
	return fmt.Errorf("unknown request kind %q", kind)
}
