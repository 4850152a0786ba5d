// Package runner runs one load test end to end: setup, the workload,
// clean-up, and the result.
package runner

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/tools/load/internal/config"
	"github.com/kubesplit/kubesplit/tools/load/internal/report"
	"github.com/kubesplit/kubesplit/tools/load/internal/stats"
	"github.com/kubesplit/kubesplit/tools/load/internal/workload"
)

// WatchGrace is how long a watch run may go on after its updates' span
// before it gives up on missing events.
const WatchGrace = 30 * time.Second

// cleanupTimeout bounds clean-up, which runs even after ctx is cancelled.
const cleanupTimeout = time.Minute

// Run sets up cfg's namespace and objects, runs its workload, and cleans up
// whatever it created, also when ctx is cancelled or a step fails. Progress
// and warnings go to log. The result is nil when there was nothing to
// measure; an interrupted run returns what it measured so far.
func Run(ctx context.Context, cfg config.Config, client kubernetes.Interface, log io.Writer) (*report.Result, error) {
	env := workload.NewEnv(client, cfg.Namespace, cfg.Size, log)
	objects := 0
	if cfg.Op.Seeds() {
		objects = cfg.Objects
	}
	fx, err := workload.Setup(ctx, env, objects)
	if !cfg.Keep {
		defer cleanup(ctx, env, fx)
	}
	if err != nil {
		return nil, fmt.Errorf("setup: %w", err)
	}
	if cfg.Op == config.OpWatch {
		return runWatch(ctx, env, cfg)
	}
	return runLoop(ctx, env, fx, cfg)
}

// cleanup removes what the run created with a context of its own, because
// the usual reason to get here early is that ctx was cancelled.
func cleanup(ctx context.Context, env *workload.Env, fx *workload.Fixture) {
	if !fx.NamespaceReady {
		return // nothing was created
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	if err := workload.Cleanup(ctx, env, fx.CreatedNamespace); err != nil {
		fmt.Fprintf(env.Log, "warning: clean-up: %v\n", err)
	}
}

func runLoop(ctx context.Context, env *workload.Env, fx *workload.Fixture, cfg config.Config) (*report.Result, error) {
	out, err := workload.Run(ctx, env, fx, workload.RunConfig{
		Op: cfg.Op, Concurrency: cfg.Concurrency, Duration: cfg.Duration, QPS: cfg.QPS,
	})
	if err != nil {
		return nil, err
	}
	var all stats.Recorder
	byOp := make(map[string]report.Summary, len(out.ByOp))
	for kind, rec := range out.ByOp {
		all.Merge(rec)
		byOp[string(kind)] = report.Summarize(rec.Snapshot(), out.Elapsed)
	}
	res := &report.Result{
		Op:              string(cfg.Op),
		Concurrency:     cfg.Concurrency,
		DurationSeconds: out.Elapsed.Seconds(),
		Summary:         report.Summarize(all.Snapshot(), out.Elapsed),
	}
	if len(byOp) > 1 {
		res.ByOp = byOp
	}
	return res, nil
}

func runWatch(ctx context.Context, env *workload.Env, cfg config.Config) (*report.Result, error) {
	out, err := workload.RunWatch(ctx, env, workload.WatchConfig{
		Watchers: cfg.Watchers,
		Updates:  cfg.Updates,
		Duration: cfg.Duration,
		Timeout:  cfg.Duration + WatchGrace,
	})
	if err != nil {
		return nil, err
	}
	return &report.Result{
		Op:              string(config.OpWatch),
		Concurrency:     1, // one writer: every update goes to the same object
		DurationSeconds: out.Elapsed.Seconds(),
		Summary:         report.Summarize(out.Writes.Snapshot(), out.Elapsed),
		Watch: &report.Watch{
			Watchers:  cfg.Watchers,
			Updates:   cfg.Updates,
			Expected:  out.Expected,
			Delivered: out.Delivered,
			Latency:   report.NewLatency(&out.Delivery),
		},
	}, nil
}
