// Package apiwait starts informers once the API answers. A stage started
// beside the registry (make run, compose and Kubernetes start them
// together) would otherwise send its informers' first lists while the
// registry is still starting; each failed list puts client-go's reflector
// into its retry backoff (0.8 s and more), which is most of a stack's time
// to ready. Asking cheaply and often until the API answers, then starting
// the informers, has their first list succeed.
package apiwait

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Every is the pause between two asks during the first Patient, the span
// in which the rest of a stack starting together comes up; after it the
// pause doubles up to Longest, so that an API that stays down costs little.
const (
	Every   = 100 * time.Millisecond
	Patient = 10 * time.Second
	Longest = 2 * time.Second
)

// Start calls start with ctx's done channel, in the background, once a
// one-item list of namespaces through client gets an answer from the API
// (any answer from the registry: an error it sends says it is there), or
// at once if ctx ends first, leaving the informers to their own retries.
func Start(ctx context.Context, client kubernetes.Interface, start func(stop <-chan struct{})) {
	go func() {
		Wait(ctx, client)
		start(ctx.Done())
	}()
}

// Wait returns once the API answers a one-item list of namespaces through
// client, or ctx ends.
func Wait(ctx context.Context, client kubernetes.Interface) {
	started := time.Now()
	for wait := Every; ; {
		_, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{Limit: 1})
		if answered(err) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if time.Since(started) > Patient {
			wait = min(2*wait, Longest)
		}
	}
}

// answered tells whether err (nil included) is the API's own answer
// rather than the aggregator's or the network's word that it is not
// there (5xx, 429, no response).
func answered(err error) bool {
	if err == nil {
		return true
	}
	code := apierrors.ReasonForError(err)
	status, ok := err.(apierrors.APIStatus)
	if !ok || code == metav1.StatusReasonTooManyRequests {
		return false
	}
	return status.Status().Code < 500
}
