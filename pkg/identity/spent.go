package identity

import (
	"container/heap"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// DefaultMaxWrites bounds how many write assertions a verifier remembers
// at once: with the default lifetime and leeway (35 s) it is 3,700 writes a
// second to one backend replica, well above what one sustains, for about
// 100 bytes each.
const DefaultMaxWrites = 1 << 17

// singleUse reports whether an assertion for a request with this method
// is good once only. A write replayed as it is would do its work again (a
// POST with generateName creates a second object), so each write gets an
// assertion of its own and backends refuse a second use; reads are safe to
// repeat, and reusing their assertions is what keeps public-key arithmetic
// off most requests (see cache).
func singleUse(method string) bool {
	switch method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return false
	}
	return true
}

// spent remembers the ids (jti) of the write assertions a verifier
// accepted, each until its expiry, so that none is accepted twice. Only
// assertions whose signature was verified get here, so only the signer can
// fill it; when full it refuses (ErrBusy) rather than forget an id that
// could then be replayed. Expired ids leave in expiry order, from a heap,
// so each use costs O(log n) whatever the load. Each replica of a backend
// remembers its own: a write replayed to another replica within the
// lifetime is not caught here, but the body binding still holds it to
// the very write that was asserted, and TLS on every hop keeps it from
// being captured.
type spent struct {
	mu  sync.Mutex
	max int
	ids map[string]struct{}
	exp spentHeap
}

// use records id, good until until, or refuses it: ErrReplayed if it was
// recorded before and has not expired, ErrBusy if max live ids are held.
func (s *spent) use(id string, until, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.exp) > 0 && !now.Before(time.Unix(0, s.exp[0].until)) {
		delete(s.ids, heap.Pop(&s.exp).(spentID).id)
	}
	if _, ok := s.ids[id]; ok {
		return fmt.Errorf("%w: jti %s", ErrReplayed, id)
	}
	if len(s.ids) >= s.max {
		return fmt.Errorf("%w: %d held", ErrBusy, len(s.ids))
	}
	if s.ids == nil {
		s.ids = map[string]struct{}{}
	}
	s.ids[id] = struct{}{}
	heap.Push(&s.exp, spentID{id: id, until: until.UnixNano()})
	return nil
}

// len is how many ids are held, for tests.
func (s *spent) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ids)
}

type spentID struct {
	id    string
	until int64 // Unix nanoseconds
}

// spentHeap orders ids by expiry, soonest first (container/heap).
type spentHeap []spentID

func (h spentHeap) Len() int           { return len(h) }
func (h spentHeap) Less(i, j int) bool { return h[i].until < h[j].until }
func (h spentHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *spentHeap) Push(x any)        { *h = append(*h, x.(spentID)) }
func (h *spentHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
