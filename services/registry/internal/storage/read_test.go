package storage

import (
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// A write through one replica is visible to a consistent read through
// another at once: the read waits for its cache to catch up with etcd.
func TestReadYourWritesAcrossReplicas(t *testing.T) {
	endpoint := startEtcd(t)
	a, b := newReplica(t, endpoint), newReplica(t, endpoint)
	sa, sb := a.store(t, "configmaps", StoreOptions{}), b.store(t, "configmaps", StoreOptions{})
	ctx := testCtx(t)
	for i := 0; i < 20; i++ {
		name := fmt.Sprintf("cm-%d", i)
		created, err := sa.Create(ctx, configMap("ns", name, nil, nil), false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sb.Get(ctx, "ns", name, ReadOptions{})
		if err != nil {
			t.Fatalf("get %s through the other replica right after its create: %v", name, err)
		}
		if got.Rev != created.Rev {
			t.Fatalf("other replica read rev %d, created at %d", got.Rev, created.Rev)
		}
		list, err := sb.List(ctx, "ns", ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != i+1 || list.Rev < created.Rev {
			t.Fatalf("list after create %d: %d items at rev %d", i, len(list.Items), list.Rev)
		}
	}
}

// A resource nobody writes gets no watch events, so its cache learns that
// it is current only from etcd's progress notifications. A consistent
// read of it must still be answered, and see what was written before.
func TestConsistentReadOfIdleResource(t *testing.T) {
	endpoint := startEtcd(t)
	a, b := newReplica(t, endpoint), newReplica(t, endpoint)
	secretsA, cmsA := a.store(t, "secrets", StoreOptions{}), a.store(t, "configmaps", StoreOptions{})
	secretsB := b.store(t, "secrets", StoreOptions{})
	b.store(t, "configmaps", StoreOptions{}) // shares b's watch stream, as in a registry
	ctx := testCtx(t)
	secret := configMap("ns", "s", nil, nil)
	secret.SetKind("Secret")
	if _, err := secretsA.Create(ctx, secret, false); err != nil {
		t.Fatal(err)
	}
	// Move etcd's revision on without touching secrets.
	for i := 0; i < 5; i++ {
		if _, err := cmsA.Create(ctx, configMap("ns", fmt.Sprintf("cm-%d", i), nil, nil), false); err != nil {
			t.Fatal(err)
		}
		if _, err := secretsB.Get(ctx, "ns", "s", ReadOptions{}); err != nil {
			t.Fatalf("get of an idle resource after a write elsewhere: %v", err)
		}
		if _, err := secretsB.Get(ctx, "ns", "missing", ReadOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("get of a missing object of an idle resource: %v", err)
		}
		rev := etcdRev(t, a.client)
		list, err := secretsB.List(ctx, "", ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if list.Rev < rev || len(list.Items) != 1 {
			t.Fatalf("list of idle resource: %d items at %d, etcd was at %d", len(list.Items), list.Rev, rev)
		}
	}
}

// Pages of a list are all cut from one snapshot, whatever is written
// between them.
func TestListPagesShareOneSnapshot(t *testing.T) {
	r, s, ctx := configMaps(t)
	want := map[string]int64{}
	for i := 0; i < 10; i++ {
		obj, err := s.Create(ctx, configMap("ns", fmt.Sprintf("cm-%02d", i), nil, nil), false)
		if err != nil {
			t.Fatal(err)
		}
		want[obj.Name()] = obj.Rev
	}
	if _, err := s.Create(ctx, configMap("other", "elsewhere", nil, nil), false); err != nil {
		t.Fatal(err)
	}
	snapshot := etcdRev(t, r.client)

	page, err := s.List(ctx, "ns", ListOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if page.Rev != snapshot || page.Remaining == nil || *page.Remaining != 7 {
		t.Fatalf("first page at rev %d (want %d), remaining %v", page.Rev, snapshot, page.Remaining)
	}
	got := map[string]int64{}
	for pages := 1; ; pages++ {
		for _, item := range page.Items {
			if _, dup := got[item.Name()]; dup {
				t.Fatalf("%s on two pages", item.Name())
			}
			got[item.Name()] = item.Rev
		}
		if page.Continue == "" {
			if pages != 4 {
				t.Fatalf("%d pages of 3 for 10 objects", pages)
			}
			break
		}
		// Write between pages: a new object, a change, a delete.
		if _, err := s.Create(ctx, configMap("ns", fmt.Sprintf("cm-%02d-new", pages), nil, nil), false); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Update(ctx, "ns", "cm-09", setData("k", "changed"), false); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Delete(ctx, "ns", fmt.Sprintf("cm-%02d", 3*pages), func(*Object) error { return nil }, false); err != nil {
			t.Fatal(err)
		}
		if page, err = s.List(ctx, "ns", ListOptions{Limit: 3, Continue: page.Continue}); err != nil {
			t.Fatal(err)
		}
		if page.Rev != snapshot {
			t.Fatalf("page %d at rev %d, first at %d", pages+1, page.Rev, snapshot)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("paged list = %v\nsnapshot   = %v", got, want)
	}
	if _, err := s.List(ctx, "ns", ListOptions{Limit: 3, Continue: "not-a-token"}); !apierrors.IsBadRequest(err) {
		t.Fatalf("bad continue token: %v", err)
	}
}

func TestListExactRevisionAndCompactedContinue(t *testing.T) {
	r, s, ctx := configMaps(t)
	first, err := s.Create(ctx, configMap("ns", "a", nil, nil), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, configMap("ns", "b", nil, nil), false); err != nil {
		t.Fatal(err)
	}
	exact := ListOptions{ReadOptions: ReadOptions{ResourceVersion: itoa(first.Rev), ResourceVersionMatch: metav1.ResourceVersionMatchExact}}
	old, err := s.List(ctx, "ns", exact)
	if err != nil {
		t.Fatal(err)
	}
	if len(old.Items) != 1 || old.Rev != first.Rev {
		t.Fatalf("exact list at %d: %d items at rev %d", first.Rev, len(old.Items), old.Rev)
	}
	page, err := s.List(ctx, "ns", ListOptions{Limit: 1})
	if err != nil || page.Continue == "" {
		t.Fatalf("first page: %v, %v", page, err)
	}
	if _, err := s.Create(ctx, configMap("ns", "c", nil, nil), false); err != nil {
		t.Fatal(err)
	}
	if _, err := r.client.Compact(ctx, etcdRev(t, r.client)); err != nil {
		t.Fatal(err)
	}
	_, err = s.List(ctx, "ns", ListOptions{Limit: 1, Continue: page.Continue})
	if !apierrors.IsResourceExpired(err) {
		t.Fatalf("continue past compaction: %v", err)
	}
	// As kube, the 410 carries a token that goes on from the same key at
	// the latest revision: the rest of the list, c included, without a.
	inconsistent := err.(apierrors.APIStatus).Status().ListMeta.Continue
	if inconsistent == "" {
		t.Fatal("the 410 carries no continue token to finish the list with")
	}
	var rest []string
	for cont := inconsistent; cont != ""; {
		p, err := s.List(ctx, "ns", ListOptions{Limit: 1, Continue: cont})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range p.Items {
			rest = append(rest, o.Name())
		}
		cont = p.Continue
	}
	if strings.Join(rest, ",") != "b,c" {
		t.Errorf("the inconsistent continuation listed %v, want b,c", rest)
	}
	if _, err := s.List(ctx, "ns", exact); !apierrors.IsResourceExpired(err) {
		t.Fatalf("exact list of a compacted revision: %v", err)
	}
}

func TestListSelectors(t *testing.T) {
	_, s, ctx := configMaps(t)
	for i, app := range []string{"web", "db", "web", "cache"} {
		if _, err := s.Create(ctx, configMap("ns", fmt.Sprintf("cm-%d", i), map[string]string{"app": app}, nil), false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Create(ctx, configMap("other", "cm-0", map[string]string{"app": "web"}, nil), false); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		ns, label, field string
		limit            int64
		want             string
	}{
		{"ns", "app=web", "", 0, "[ns/cm-0 ns/cm-2]"},
		{"", "app=web", "", 0, "[ns/cm-0 ns/cm-2 other/cm-0]"},
		{"ns", "app in (db,cache)", "", 0, "[ns/cm-1 ns/cm-3]"},
		{"ns", "app!=web", "metadata.name!=cm-3", 0, "[ns/cm-1]"},
		{"", "", "metadata.name=cm-0", 0, "[ns/cm-0 other/cm-0]"},
		{"", "app=web", "metadata.namespace=other", 0, "[other/cm-0]"},
		// From etcd, page by page, the selector still applies.
		{"", "app=web", "", 1, "[ns/cm-0 ns/cm-2 other/cm-0]"},
		{"ns", "app=nothing", "", 0, "[]"},
	}
	for _, c := range cases {
		lbl, err := labels.Parse(c.label)
		if err != nil {
			t.Fatal(err)
		}
		opts := ListOptions{Selector: Selector{Label: lbl, Field: fields.ParseSelectorOrDie(c.field)}, Limit: c.limit}
		var names []string
		for {
			page, err := s.List(ctx, c.ns, opts)
			if err != nil {
				t.Fatal(err)
			}
			if c.limit > 0 && page.Remaining != nil {
				t.Errorf("%+v: remainingItemCount %d with a selector", c, *page.Remaining)
			}
			for _, item := range page.Items {
				names = append(names, item.Namespace()+"/"+item.Name())
			}
			if opts.Continue = page.Continue; opts.Continue == "" {
				break
			}
		}
		if got := fmt.Sprint(names); got != c.want && !(c.want == "[]" && names == nil) {
			t.Errorf("list %q label %q field %q = %s, want %s", c.ns, c.label, c.field, got, c.want)
		}
	}
	bad := ListOptions{Selector: Selector{Field: fields.ParseSelectorOrDie("data.k=v")}}
	if _, err := s.List(ctx, "ns", bad); !apierrors.IsBadRequest(err) {
		t.Fatalf("field selector on an unsupported field: %v", err)
	}
}
