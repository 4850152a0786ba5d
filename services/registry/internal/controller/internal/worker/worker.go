// Package worker runs the workqueue loop every kubesplit controller shares:
// take a key, sync it, and on failure retry with exponential backoff a
// bounded number of times before giving up on the key until the next event
// or resync brings it back.
package worker

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"
)

// ErrPending marks a sync that made no mistake but must look again later
// (content still being deleted, a finalizer not yet removed). It is retried
// like any error but logged quietly, because it is the normal course.
var ErrPending = errors.New("pending")

// Options shape a queue and its workers.
type Options struct {
	// Name names the queue in logs.
	Name string
	// Workers is how many keys are synced at once; 0 means 1.
	Workers int
	// MaxRetries is how many times a failing key is retried before it is
	// dropped; 0 means 10.
	MaxRetries int
	// BaseDelay and MaxDelay bound the per-key exponential backoff; zero
	// means 100ms and 1m.
	BaseDelay, MaxDelay time.Duration
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = 1
	}
	if o.MaxRetries <= 0 {
		o.MaxRetries = 10
	}
	if o.BaseDelay <= 0 {
		o.BaseDelay = 100 * time.Millisecond
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = time.Minute
	}
	return o
}

// Queue is a rate-limited workqueue with the sync loop that drains it.
type Queue[T comparable] struct {
	q    workqueue.TypedRateLimitingInterface[T]
	opts Options
	log  *slog.Logger
}

// New returns a queue; nothing runs until Run.
func New[T comparable](log *slog.Logger, opts Options) *Queue[T] {
	opts = opts.withDefaults()
	// The overall bucket keeps a burst of failures across many keys from
	// hammering the API server, as kube's default controller limiter does.
	limiter := workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[T](opts.BaseDelay, opts.MaxDelay),
		&workqueue.TypedBucketRateLimiter[T]{Limiter: rate.NewLimiter(rate.Limit(20), 200)},
	)
	q := workqueue.NewTypedRateLimitingQueueWithConfig(limiter, workqueue.TypedRateLimitingQueueConfig[T]{Name: opts.Name})
	return &Queue[T]{q: q, opts: opts, log: log.With("queue", opts.Name)}
}

// Add enqueues key for a sync as soon as a worker is free.
func (q *Queue[T]) Add(key T) { q.q.Add(key) }

// AddAfter enqueues key once d has passed.
func (q *Queue[T]) AddAfter(key T, d time.Duration) { q.q.AddAfter(key, d) }

// Retries is how many times key has failed since it last synced.
func (q *Queue[T]) Retries(key T) int { return q.q.NumRequeues(key) }

// Len is the number of keys waiting.
func (q *Queue[T]) Len() int { return q.q.Len() }

// Run syncs keys with the configured number of workers until ctx ends, then
// shuts the queue down and waits for the workers to finish their current key.
func (q *Queue[T]) Run(ctx context.Context, fn func(context.Context, T) error) {
	var wg sync.WaitGroup
	for range q.opts.Workers {
		wg.Go(func() {
			for q.next(ctx, fn) {
			}
		})
	}
	<-ctx.Done()
	q.q.ShutDown()
	wg.Wait()
}

// next processes one key; it reports false once the queue is shut down.
func (q *Queue[T]) next(ctx context.Context, fn func(context.Context, T) error) bool {
	key, shutdown := q.q.Get()
	if shutdown {
		return false
	}
	defer q.q.Done(key)
	q.handle(key, fn(ctx, key))
	return true
}

// handle forgets a key that synced and requeues one that failed, until it
// has failed MaxRetries times.
func (q *Queue[T]) handle(key T, err error) {
	if err == nil {
		q.q.Forget(key)
		return
	}
	n := q.q.NumRequeues(key)
	if n >= q.opts.MaxRetries {
		q.q.Forget(key)
		q.log.Warn("dropping key after repeated failures", "key", key, "retries", n, "err", err)
		return
	}
	if errors.Is(err, ErrPending) {
		q.log.Debug("requeueing key", "key", key, "reason", err)
	} else {
		q.log.Info("sync failed; retrying", "key", key, "retries", n, "err", err)
	}
	q.q.AddRateLimited(key)
}
