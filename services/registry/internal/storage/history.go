package storage

// history is a ring of a cache's latest events, so that a watch can resume
// from a recent resourceVersion without going back to etcd.
type history struct {
	size  int     // how many events it keeps
	buf   []Event // grows up to size, so idle resources cost nothing
	first int     // index of the oldest event
	n     int
	// from is the revision after which the history is complete: every
	// event with a higher revision is in it.
	from int64
}

func newHistory(size int) *history { return &history{size: size} }

// start marks the history complete from rev on, when the cache is filled
// and again after every relist: the relist's events stand for changes the
// history never saw one by one, so no watch may resume from before it.
func (h *history) start(rev int64) {
	if rev > h.from {
		h.from = rev
	}
}

// add appends an event, dropping the oldest when the ring is full.
func (h *history) add(ev Event) {
	if len(h.buf) < h.size {
		// Not yet full: the ring has never wrapped, so first is 0.
		h.buf = append(h.buf, ev)
		h.n++
		return
	}
	// A relist's events may be older than the relist itself: from never
	// moves back.
	if rev := h.buf[h.first].Object.Rev; rev > h.from {
		h.from = rev
	}
	h.buf[h.first] = ev
	h.first = (h.first + 1) % len(h.buf)
}

// since returns the events after rev, oldest first, or false when events
// after rev have already been dropped.
func (h *history) since(rev int64) ([]Event, bool) {
	if rev < h.from {
		return nil, false
	}
	var out []Event
	for i := 0; i < h.n; i++ {
		ev := h.buf[(h.first+i)%len(h.buf)]
		if ev.Object.Rev > rev {
			out = append(out, ev)
		}
	}
	return out, true
}
