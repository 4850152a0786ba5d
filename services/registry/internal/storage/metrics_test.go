package storage

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// measuredConfigMaps is configMaps with the backend's metrics on a
// registry of their own, and n config maps c0, c1, … created.
func measuredConfigMaps(t *testing.T, n int) (*replica, *Store, context.Context, *prometheus.Registry) {
	t.Helper()
	r, cms, ctx := configMaps(t)
	reg := registered(t, r.backend)
	for i := range n {
		if _, err := cms.Create(ctx, configMap("ns", fmt.Sprint("c", i), nil, nil), false); err != nil {
			t.Fatal(err)
		}
	}
	return r, cms, ctx, reg
}

// registered is a new registry holding b's metrics.
func registered(t *testing.T, b *Backend) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := b.RegisterMetrics(reg); err != nil {
		t.Fatal(err)
	}
	return reg
}

// gathered is one metric family of reg in Prometheus's text format, as a
// scraper reads it.
func gathered(t *testing.T, reg *prometheus.Registry, name string) string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
			}
			value := m.GetGauge().GetValue()
			if h := m.GetHistogram(); h != nil {
				value = float64(h.GetSampleCount())
			}
			fmt.Fprintf(&b, "{%s} %v\n", strings.Join(labels, ","), value)
		}
	}
	return b.String()
}

// The object count follows the store's contents at each scrape, named as
// kube names a resource; a store that is closed leaves it.
func TestStorageObjects(t *testing.T) {
	r, cms, ctx, reg := measuredConfigMaps(t, 3)
	count := func(want string) {
		t.Helper()
		polltest.Until(t, testTimeout, "apiserver_storage_objects "+want, func() bool {
			return strings.Contains(gathered(t, reg, "apiserver_storage_objects"), want)
		})
	}
	count(`{resource="configmaps"} 3`)
	if _, err := cms.Delete(ctx, "ns", "c0", func(*Object) error { return nil }, false); err != nil {
		t.Fatal(err)
	}
	count(`{resource="configmaps"} 2`)

	deployments := r.backend.NewClosableStore(grouped(t, "apps", "deployments"), StoreOptions{})
	waitReady(t, deployments)
	d := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"namespace": "ns", "name": "d"}}}
	if _, err := deployments.Create(ctx, d, false); err != nil {
		t.Fatal(err)
	}
	count(`{resource="deployments.apps"} 1`)
	deployments.Close()
	if got := gathered(t, reg, "apiserver_storage_objects"); strings.Contains(got, "deployments") {
		t.Errorf("a closed store is still counted:\n%s", got)
	}
}

// Every etcd call a request makes is timed under its operation and
// resource; a read served from the cache is not an etcd call.
func TestEtcdRequestDuration(t *testing.T) {
	r, cms, ctx, reg := measuredConfigMaps(t, 3)
	// A consistent read, from the cache: the update finds c1 there and
	// reads nothing from etcd, so the one "get" below is the delete's.
	if _, err := cms.Get(ctx, "ns", "c1", ReadOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Update(ctx, "ns", "c1", setData("k", "v"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Delete(ctx, "ns", "c2", func(*Object) error { return nil }, false); err != nil {
		t.Fatal(err)
	}
	// A page is read from etcd, a whole list from the cache.
	for _, limit := range []int64{10, 0} {
		if _, err := cms.List(ctx, "ns", ListOptions{Limit: limit}); err != nil {
			t.Fatal(err)
		}
	}
	got := gathered(t, reg, "etcd_request_duration_seconds")
	for _, want := range []string{
		`{group="",operation="create",resource="configmaps"} 3`,
		`{group="",operation="update",resource="configmaps"} 1`,
		// The delete reads the object from etcd first, then deletes it.
		`{group="",operation="get",resource="configmaps"} 1`,
		`{group="",operation="delete",resource="configmaps"} 1`,
		`{group="",operation="list",resource="configmaps"} 1`,
	} {
		if !strings.Contains(got, want+"\n") {
			t.Errorf("etcd_request_duration_seconds lacks %s:\n%s", want, got)
		}
	}
	if n := testutil.CollectAndCount(r.backend.metrics.etcd); n != 5 {
		t.Errorf("%d etcd latency series, want 5 (one per operation made)", n)
	}
}

// grouped returns the built-in resource plural in group.
func grouped(t *testing.T, group, plural string) *resource.Info {
	t.Helper()
	for _, info := range resource.Builtins() {
		if info.Group == group && info.Resource == plural {
			return info
		}
	}
	t.Fatalf("no built-in resource %s.%s", plural, group)
	return nil
}
