package storage

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Lists read from etcd hold copies of their objects until released, and
// together they may hold no more than the backend's budget: one past it
// is 429 with a delay to retry after, and taking nothing meanwhile; a
// release makes room again. A list alone may go past the budget, or one
// larger than it could never be served. Lists from the cache, which copy
// nothing, are never refused.
func TestListsFromEtcdShareABudget(t *testing.T) {
	r := newReplica(t, startEtcd(t))
	const budget = 250 << 10
	r.backend.lists = newByteBudget(budget)
	s := r.store(t, "configmaps", StoreOptions{})
	ctx := testCtx(t)
	value := strings.Repeat("x", 10<<10)
	var last *Object
	for i := range 10 {
		var err error
		if last, err = s.Create(ctx, configMap("ns", fmt.Sprint("cm-", i), nil, map[string]any{"v": value}), false); err != nil {
			t.Fatal(err)
		}
	}
	exact := ListOptions{ReadOptions: ReadOptions{ResourceVersion: strconv.FormatInt(last.Rev, 10), ResourceVersionMatch: metav1.ResourceVersionMatchExact}}
	first, err := s.List(ctx, "ns", exact)
	if err != nil || len(first.Items) != 10 {
		t.Fatalf("first list: %v", err)
	}
	second, err := s.List(ctx, "ns", exact)
	if err != nil || len(second.Items) != 10 {
		t.Fatalf("second list: %v", err)
	}
	inUse := r.backend.lists.inUse()
	_, err = s.List(ctx, "ns", exact)
	if delay, ok := apierrors.SuggestsClientDelay(err); !apierrors.IsTooManyRequests(err) || !ok || delay < 1 {
		t.Fatalf("a third list of 100 KiB within a budget of 250 KiB: %v, want 429 with a delay", err)
	}
	if r.backend.lists.inUse() != inUse {
		t.Errorf("the refused list kept %d bytes of budget", r.backend.lists.inUse()-inUse)
	}
	if cached, err := s.List(ctx, "ns", ListOptions{}); err != nil || len(cached.Items) != 10 {
		t.Errorf("a list from the cache with the budget spent: %v", err)
	}
	page, err := s.List(ctx, "ns", ListOptions{Limit: 2})
	if err != nil || len(page.Items) != 2 {
		t.Errorf("a page of 2 with room for them: %v", err)
	} else {
		page.Release()
	}

	first.Release()
	first.Release() // twice gives back nothing more
	third, err := s.List(ctx, "ns", exact)
	if err != nil || len(third.Items) != 10 {
		t.Fatalf("a list once another was released: %v", err)
	}
	second.Release()
	third.Release()
	if n := r.backend.lists.inUse(); n != 0 {
		t.Errorf("all lists released, %d bytes of budget still in use", n)
	}

	// A list larger than the whole budget is served when alone, and
	// refuses others while it holds it.
	r.backend.lists = newByteBudget(50 << 10)
	s = r.store(t, "configmaps", StoreOptions{})
	alone, err := s.List(ctx, "ns", exact)
	if err != nil || len(alone.Items) != 10 {
		t.Fatalf("a list of 100 KiB alone within a budget of 50 KiB: %v", err)
	}
	if _, err := s.List(ctx, "ns", ListOptions{Limit: 1}); !apierrors.IsTooManyRequests(err) {
		t.Errorf("a page while a list holds more than the budget: %v, want 429", err)
	}
	alone.Release()
	if n := r.backend.lists.inUse(); n != 0 {
		t.Errorf("released, %d bytes of budget still in use", n)
	}
}
