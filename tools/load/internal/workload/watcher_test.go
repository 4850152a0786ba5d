package workload

import (
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

func event(typ watch.EventType, name, rv string, seq int, sent time.Time) watch.Event {
	return watch.Event{Type: typ, Object: &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: rv},
		Data:       map[string]string{keySeq: strconv.Itoa(seq), keySent: strconv.FormatInt(sent.UnixNano(), 10)},
	}}
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestWatcherHandle(t *testing.T) {
	w := newWatcher(&Env{}, "target", 2, time.Minute)
	t0 := time.Unix(1000, 0)
	steps := []watch.Event{
		event(watch.Added, "other", "5", 1, t0),  // not ours: only moves lastRV
		event(watch.Added, "target", "6", 0, t0), // the sentinel
		event(watch.Modified, "target", "7", 1, t0),
		event(watch.Modified, "target", "7", 1, t0), // a repeat after a resume
		{Type: watch.Bookmark, Object: &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "8"}}},
	}
	for _, ev := range steps {
		if err := w.handle(ev, t0.Add(3*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	if !closed(w.ready) || closed(w.complete) {
		t.Fatalf("ready/complete = %v/%v, want true/false", closed(w.ready), closed(w.complete))
	}
	if w.delivered != 1 || w.latency.Max() != 3*time.Millisecond || w.lastRV != "8" {
		t.Errorf("delivered/latency/lastRV = %d/%v/%s, want 1/3ms/8", w.delivered, w.latency.Max(), w.lastRV)
	}
	if err := w.handle(event(watch.Modified, "target", "9", 2, t0), t0.Add(time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if !closed(w.complete) || w.delivered != 2 {
		t.Errorf("after last update: complete/delivered = %v/%d, want true/2", closed(w.complete), w.delivered)
	}
}

func TestWatcherHandleError(t *testing.T) {
	w := newWatcher(&Env{}, "target", 1, time.Minute)
	gone := apierrors.NewResourceExpired("too old resource version")
	err := w.handle(watch.Event{Type: watch.Error, Object: &gone.ErrStatus}, time.Now())
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Errorf("handle(Error 410) = %v, want the Status as an error", err)
	}
}
