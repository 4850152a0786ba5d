package storage

import (
	"testing"

	"k8s.io/apimachinery/pkg/watch"
)

func eventAt(rev int64) Event {
	return Event{Type: watch.Modified, Object: &Object{Rev: rev}}
}

// After a relist the history is complete only from the relist's revision:
// its synthetic events stand for changes it never saw one by one, and
// dropping one of them later must not make the history claim more.
func TestHistoryAfterRelist(t *testing.T) {
	h := newHistory(2)
	h.start(5)
	h.add(eventAt(6))
	if _, ok := h.since(5); !ok {
		t.Fatal("history from its first fill is incomplete")
	}
	// A relist at 10 finds an object last written at 8.
	h.add(eventAt(8))
	h.start(10)
	if _, ok := h.since(7); ok {
		t.Fatal("history claims the events between 7 and the relist at 10")
	}
	h.add(eventAt(11))
	h.add(eventAt(12)) // drops the synthetic event at 8
	if _, ok := h.since(9); ok {
		t.Fatal("dropping a synthetic event moved the history's start back before the relist")
	}
	events, ok := h.since(10)
	if !ok || len(events) != 2 || events[0].Object.Rev != 11 || events[1].Object.Rev != 12 {
		t.Fatalf("since(10) = %v, %v", events, ok)
	}
	h.add(eventAt(13)) // drops 11
	if _, ok := h.since(10); ok {
		t.Fatal("history claims an event it dropped")
	}
}
