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
// release makes room again. Lists from the cache, which copy nothing, are
// never refused.
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
	left := r.backend.lists.left
	_, err = s.List(ctx, "ns", exact)
	if delay, ok := apierrors.SuggestsClientDelay(err); !apierrors.IsTooManyRequests(err) || !ok || delay < 1 {
		t.Fatalf("a third list of 100 KiB within a budget of 250 KiB: %v, want 429 with a delay", err)
	}
	if r.backend.lists.left != left {
		t.Errorf("the refused list kept %d bytes of budget", left-r.backend.lists.left)
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
	if r.backend.lists.left != budget {
		t.Errorf("all lists released, %d bytes of budget left, want %d", r.backend.lists.left, budget)
	}
}
