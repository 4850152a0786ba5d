package storage

import (
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// DefaultListBudget is how many bytes of objects read from etcd the lists
// in flight may hold together (see byteBudget).
const DefaultListBudget = 512 << 20

// listRetryAfter is what a list refused for want of budget asks the client
// to wait, in seconds.
const listRetryAfter = 1

// byteBudget bounds what the lists served from etcd (pages, exact
// resourceVersions) hold at once. Lists served from the cache share its
// objects and cost nothing here; a list read from etcd decodes a copy of
// every object it returns and keeps it until the response is written, so
// many concurrent large ones could take the registry's memory without
// bound. One past the budget is refused with 429 and Retry-After, which
// client-go retries, rather than queued; but a list that holds all the
// budget in use may go past it, so that a list larger than the whole
// budget is served when it is alone instead of never.
type byteBudget struct {
	mu          sync.Mutex
	total, used int64
}

func newByteBudget(n int64) *byteBudget { return &byteBudget{total: n} }

// take reserves n more bytes for a list already holding held, reporting
// false (reserving nothing) when that would go past the budget while other
// lists hold some of it.
func (b *byteBudget) take(n, held int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.total && b.used > held {
		return false
	}
	b.used += n
	return true
}

// give returns n bytes taken before.
func (b *byteBudget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// inUse is how many bytes the lists hold.
func (b *byteBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// errListBudget is the 429 for a list that would go past the budget.
func errListBudget() error {
	return apierrors.NewTooManyRequests(
		"the lists in flight hold all the objects read from storage this server allows; retry, or list with a smaller limit",
		listRetryAfter)
}
