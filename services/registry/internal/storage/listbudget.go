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
// client-go retries, rather than queued.
type byteBudget struct {
	mu   sync.Mutex
	left int64
}

func newByteBudget(n int64) *byteBudget { return &byteBudget{left: n} }

// take reserves n bytes, reporting false (reserving nothing) when fewer
// are left.
func (b *byteBudget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

// give returns n bytes taken before.
func (b *byteBudget) give(n int64) {
	b.mu.Lock()
	b.left += n
	b.mu.Unlock()
}

// errListBudget is the 429 for a list that would go past the budget.
func errListBudget() error {
	return apierrors.NewTooManyRequests(
		"the lists in flight hold all the objects read from storage this server allows; retry, or list with a smaller limit",
		listRetryAfter)
}
