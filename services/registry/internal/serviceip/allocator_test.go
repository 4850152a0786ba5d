package serviceip

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubesplit/kubesplit/services/registry/embedetcd/etcdtest"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// fixture is an allocator over the registry's stores on an etcd of its
// own.
type fixture struct {
	t      *testing.T
	ctx    context.Context
	client *clientv3.Client
	a      *Allocator
	stores Stores
}

func newFixture(t *testing.T, cidrs, ports string) *fixture {
	t.Helper()
	_, client := etcdtest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	backend := storage.NewBackend(ctx, client)
	var stores Stores
	for _, info := range resource.Builtins() {
		switch {
		case info.Group == "" && info.Resource == "services":
			stores.Services = backend.NewStore(info, storage.StoreOptions{})
		case info.Group == "networking.k8s.io" && info.Resource == "ipaddresses":
			stores.IPAddresses = backend.NewStore(info, storage.StoreOptions{})
		case info.Group == "networking.k8s.io" && info.Resource == "servicecidrs":
			stores.ServiceCIDRs = backend.NewStore(info, storage.StoreOptions{})
		}
	}
	cidrList, err := ParseServiceCIDRs(cidrs)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := ParseNodePortRange(ports)
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(client, stores, Config{ServiceCIDRs: cidrList, NodePorts: pr})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, ctx: ctx, client: client, a: a, stores: stores}
}

// svc is a Service of namespace ns as the handler has it before
// allocation: named, with a uid.
func svc(t *testing.T, ns, name, spec string) *unstructured.Unstructured {
	t.Helper()
	obj := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":%q,"namespace":%q,"uid":%q},"spec":%s}`,
		name, ns, uuid.NewString(), spec)), &obj.Object); err != nil {
		t.Fatal(err)
	}
	return obj
}

// allocate allocates for obj (old nil on create) and commits.
func (f *fixture) allocate(obj, old *unstructured.Unstructured) *unstructured.Unstructured {
	f.t.Helper()
	al, err := f.a.Allocate(f.ctx, obj, old, false)
	if err != nil {
		f.t.Fatalf("allocate %s: %v", obj.GetName(), err)
	}
	al.Commit()
	return obj
}

// store writes obj into the services store, as the handler would.
func (f *fixture) store(obj *unstructured.Unstructured) {
	f.t.Helper()
	obj.SetCreationTimestamp(metav1.Now())
	if _, err := f.stores.Services.Create(f.ctx, obj, false); err != nil {
		f.t.Fatal(err)
	}
}

func specField(obj *unstructured.Unstructured, path ...string) string {
	v, _, _ := unstructured.NestedFieldNoCopy(obj.Object, path...)
	if v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// held are the IPAddresses with the Service each names.
func (f *fixture) held() map[string]string {
	f.t.Helper()
	res, err := f.stores.IPAddresses.List(f.ctx, "", storage.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	defer res.Release()
	out := map[string]string{}
	for _, item := range res.Items {
		o := parentOf(item.Decode())
		out[item.Name()] = o.Namespace + "/" + o.Name
	}
	return out
}

func (f *fixture) ports() map[string]string {
	f.t.Helper()
	resp, err := f.client.Get(f.ctx, NodePortPrefix, clientv3.WithPrefix())
	if err != nil {
		f.t.Fatal(err)
	}
	out := map[string]string{}
	for _, kv := range resp.Kvs {
		var h portHolder
		_ = json.Unmarshal(kv.Value, &h)
		out[strings.TrimPrefix(string(kv.Key), NodePortPrefix)] = h.Namespace + "/" + h.Name
	}
	return out
}

// IP families are defaulted from the cluster's, as kube's REST storage
// does, and a dual-stack Service gets an address of each.
func TestDualStackFamilies(t *testing.T) {
	f := newFixture(t, "10.0.0.0/24,fd00::/108", DefaultServiceNodePortRange)
	for _, c := range []struct{ spec, ips, families, policy string }{
		{`{"ports":[{"port":80}]}`, "v4", "[IPv4]", "SingleStack"},
		{`{"ipFamilyPolicy":"PreferDualStack","ports":[{"port":80}]}`, "v4 v6", "[IPv4 IPv6]", "PreferDualStack"},
		{`{"ipFamilyPolicy":"RequireDualStack","ipFamilies":["IPv6"],"ports":[{"port":80}]}`, "v6 v4", "[IPv6 IPv4]", "RequireDualStack"},
		{`{"ipFamilies":["IPv6"],"ports":[{"port":80}]}`, "v6", "[IPv6]", "SingleStack"},
		{`{"clusterIP":"None","ports":[{"port":80}]}`, "None", "[IPv4 IPv6]", "RequireDualStack"},
		{`{"clusterIP":"None","selector":{"a":"b"},"ports":[{"port":80}]}`, "None", "[IPv4]", "SingleStack"},
	} {
		obj := f.allocate(svc(t, "ns", "s", c.spec), nil)
		ips, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "clusterIPs")
		var kinds []string
		for _, ip := range ips {
			switch a, ok := parseIP(ip); {
			case !ok:
				kinds = append(kinds, ip)
			case a.Is4():
				kinds = append(kinds, "v4")
			default:
				kinds = append(kinds, "v6")
			}
		}
		if strings.Join(kinds, " ") != c.ips || specField(obj, "spec", "ipFamilies") != c.families || specField(obj, "spec", "ipFamilyPolicy") != c.policy {
			t.Errorf("%s: clusterIPs %v ipFamilies %s policy %s", c.spec, ips, specField(obj, "spec", "ipFamilies"), specField(obj, "spec", "ipFamilyPolicy"))
		}
		if len(ips) > 0 && ips[0] != "None" && specField(obj, "spec", "clusterIP") != ips[0] {
			t.Errorf("%s: clusterIP %s", c.spec, specField(obj, "spec", "clusterIP"))
		}
	}

	// Upgraded to dual-stack, then back.
	single := f.allocate(svc(t, "ns", "u", `{"ports":[{"port":80}]}`), nil)
	next := single.DeepCopy()
	_ = unstructured.SetNestedField(next.Object, "PreferDualStack", "spec", "ipFamilyPolicy")
	f.allocate(next, single)
	ips, _, _ := unstructured.NestedStringSlice(next.Object, "spec", "clusterIPs")
	if len(ips) != 2 || f.held()[ips[1]] != "ns/u" {
		t.Fatalf("upgrade: clusterIPs %v, held %v", ips, f.held())
	}
	down := next.DeepCopy()
	_ = unstructured.SetNestedField(down.Object, "SingleStack", "spec", "ipFamilyPolicy")
	f.allocate(down, next)
	if got, _, _ := unstructured.NestedStringSlice(down.Object, "spec", "clusterIPs"); len(got) != 1 || f.held()[ips[1]] != "" {
		t.Errorf("downgrade: clusterIPs %v, the secondary still held: %v", got, f.held())
	}
}

// An allocation is kept by Commit and given back by Revert; an update
// gives up what it no longer needs only once committed.
func TestAllocationCommitAndRevert(t *testing.T) {
	f := newFixture(t, "10.0.0.0/24", DefaultServiceNodePortRange)
	obj := svc(t, "ns", "s", `{"type":"NodePort","ports":[{"port":80,"nodePort":30080}]}`)
	al, err := f.a.Allocate(f.ctx, obj, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	ip := specField(obj, "spec", "clusterIP")
	if f.held()[ip] != "ns/s" || f.ports()["30080"] != "ns/s" {
		t.Fatalf("allocated: %v %v", f.held(), f.ports())
	}
	al.Revert()
	al.Commit() // settled already: no-op
	if len(f.held()) != 0 || len(f.ports()) != 0 {
		t.Fatalf("reverted: %v %v", f.held(), f.ports())
	}

	old := f.allocate(svc(t, "ns", "s", `{"type":"NodePort","ports":[{"port":80,"nodePort":30080}]}`), nil)
	ip = specField(old, "spec", "clusterIP")
	next := old.DeepCopy()
	_ = unstructured.SetNestedField(next.Object, "ExternalName", "spec", "type")
	_ = unstructured.SetNestedField(next.Object, "example.com", "spec", "externalName")
	unstructured.RemoveNestedField(next.Object, "spec", "clusterIP")
	unstructured.RemoveNestedField(next.Object, "spec", "clusterIPs")
	al, err = f.a.Allocate(f.ctx, next, old, false)
	if err != nil {
		t.Fatal(err)
	}
	al.Revert()
	if f.held()[ip] != "ns/s" || f.ports()["30080"] != "ns/s" {
		t.Fatalf("a reverted update gave up what it would have: %v %v", f.held(), f.ports())
	}
	al, err = f.a.Allocate(f.ctx, next, old, false)
	if err != nil {
		t.Fatal(err)
	}
	al.Commit()
	if len(f.held()) != 0 || len(f.ports()) != 0 {
		t.Fatalf("committed ExternalName: %v %v", f.held(), f.ports())
	}

	// Release gives back what a deleted Service held, and only its own.
	lb := f.allocate(svc(t, "ns", "lb", `{"type":"LoadBalancer","externalTrafficPolicy":"Local","ports":[{"port":80}]}`), nil)
	other := f.allocate(svc(t, "ns", "o", `{"type":"NodePort","ports":[{"port":80}]}`), nil)
	if len(f.ports()) != 3 {
		t.Fatalf("ports %v", f.ports())
	}
	f.a.Release(f.ctx, lb)
	if len(f.held()) != 1 || f.held()[specField(other, "spec", "clusterIP")] != "ns/o" || len(f.ports()) != 1 {
		t.Errorf("after the release: %v %v", f.held(), f.ports())
	}
	// A stale release (the address now another Service's) takes nothing.
	stale := other.DeepCopy()
	stale.SetName("gone")
	stale.SetUID("x")
	f.a.Release(f.ctx, stale)
	if len(f.held()) != 1 || len(f.ports()) != 1 {
		t.Errorf("a release for another Service took %v %v", f.held(), f.ports())
	}
}

// The first address is the kubernetes Service's alone; a dry run takes
// nothing and answers as kube does.
func TestKubernetesServiceAddressAndDryRun(t *testing.T) {
	f := newFixture(t, "10.0.0.0/29", "30000-30010")
	for i := range 5 {
		obj := f.allocate(svc(t, "ns", fmt.Sprintf("s%d", i), `{"ports":[{"port":80}]}`), nil)
		if specField(obj, "spec", "clusterIP") == "10.0.0.1" {
			t.Fatal("a Service got the kubernetes Service's address")
		}
	}
	_, err := f.a.Allocate(f.ctx, svc(t, "ns", "full", `{"ports":[{"port":80}]}`), nil, false)
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), `failed to allocate a serviceIP for Service "full": range is full`) {
		t.Errorf("full range: %v", err)
	}
	f.allocate(svc(t, "default", "kubernetes", `{"clusterIP":"10.0.0.1","ports":[{"port":443}]}`), nil)
	if f.held()["10.0.0.1"] != "default/kubernetes" {
		t.Errorf("the kubernetes Service's address: %v", f.held())
	}

	before := f.held()
	dry := svc(t, "ns", "dry", `{"type":"LoadBalancer","externalTrafficPolicy":"Local","ports":[{"port":80,"name":"a"},{"port":81,"name":"b"}]}`)
	al, err := f.a.Allocate(f.ctx, dry, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	al.Commit()
	ports, _, _ := unstructured.NestedSlice(dry.Object, "spec", "ports")
	if specField(dry, "spec", "clusterIP") != "10.0.0.0" || fmt.Sprint(ports[0].(map[string]any)["nodePort"], ports[1].(map[string]any)["nodePort"]) != "32769 32770" ||
		specField(dry, "spec", "healthCheckNodePort") != "32771" {
		t.Errorf("dry run: %v", dry.Object["spec"])
	}
	_, err = f.a.Allocate(f.ctx, svc(t, "ns", "dry", `{"clusterIP":"10.9.9.9","ports":[{"port":80}]}`), nil, true)
	if err == nil || !strings.HasSuffix(err.Error(), "failed to allocate IP 10.9.9.9: the provided IP (10.9.9.9) is not in the valid range. The range of valid IPs is 10.0.0.0/29") {
		t.Errorf("dry run out of range: %v", err)
	}
	if fmt.Sprint(f.held()) != fmt.Sprint(before) || len(f.ports()) != 0 {
		t.Errorf("a dry run allocated: %v %v", f.held(), f.ports())
	}
}

// The default ServiceCIDR is written as kube writes it; another
// ServiceCIDR's range gives addresses too, and none once being deleted.
func TestServiceCIDRs(t *testing.T) {
	f := newFixture(t, "10.0.0.0/24", DefaultServiceNodePortRange)
	if err := f.a.EnsureDefaultServiceCIDR(f.ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.a.EnsureDefaultServiceCIDR(f.ctx); err != nil {
		t.Fatal(err)
	}
	obj, err := f.stores.ServiceCIDRs.Get(f.ctx, "", DefaultServiceCIDRName, storage.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cidr := obj.Decode()
	conds, _, _ := unstructured.NestedSlice(cidr.Object, "status", "conditions")
	if specField(cidr, "spec", "cidrs") != "[10.0.0.0/24]" || len(conds) != 1 || fmt.Sprint(conds[0].(map[string]any)["status"]) != "True" {
		t.Errorf("default ServiceCIDR %v", cidr.Object)
	}

	_, err = f.a.Allocate(f.ctx, svc(t, "ns", "x", `{"clusterIP":"10.1.0.5","ports":[{"port":80}]}`), nil, false)
	if err == nil || !strings.Contains(err.Error(), "the provided network does not match the current range") {
		t.Fatalf("outside every ServiceCIDR: %v", err)
	}
	extra := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "networking.k8s.io/v1", "kind": "ServiceCIDR",
		"metadata": map[string]any{"name": "extra", "uid": "u"}, "spec": map[string]any{"cidrs": []any{"10.1.0.0/24"}}}}
	if _, err := f.stores.ServiceCIDRs.Create(f.ctx, extra, false); err != nil {
		t.Fatal(err)
	}
	f.allocate(svc(t, "ns", "x", `{"clusterIP":"10.1.0.5","ports":[{"port":80}]}`), nil)
	if _, err := f.stores.ServiceCIDRs.Update(f.ctx, "", "extra", func(cur *storage.Object) (*unstructured.Unstructured, error) {
		o := cur.Decode()
		now := metav1.Now()
		o.SetDeletionTimestamp(&now)
		o.SetFinalizers([]string{"networking.k8s.io/service-cidr-finalizer"})
		return o, nil
	}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.stores.ServiceCIDRs.Get(f.ctx, "", "none", storage.ReadOptions{}); !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	_, err = f.a.Allocate(f.ctx, svc(t, "ns", "y", `{"clusterIP":"10.1.0.6","ports":[{"port":80}]}`), nil, false)
	if err == nil || !strings.Contains(err.Error(), "the provided network does not match the current range") {
		t.Errorf("a ServiceCIDR being deleted gave an address: %v", err)
	}
}

// Repair recreates what a Service holds but lacks and removes what no
// Service holds, leaving alone what is young enough to belong to a write
// in flight and what another Service holds.
func TestRepair(t *testing.T) {
	f := newFixture(t, "10.0.0.0/24", DefaultServiceNodePortRange)
	old := time.Now().Add(-time.Hour)
	// Services written without their IPAddresses and keys.
	f.store(svc(t, "ns", "lost", `{"type":"NodePort","clusterIP":"10.0.0.50","clusterIPs":["10.0.0.50"],"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","ports":[{"port":80,"nodePort":30100}]}`))
	// Held by one Service, claimed by another too: a conflict, left alone.
	owner1 := f.allocate(svc(t, "ns", "owner", `{"clusterIP":"10.0.0.60","ports":[{"port":80}]}`), nil)
	f.store(owner1)
	f.store(svc(t, "ns", "claims", `{"clusterIP":"10.0.0.60","clusterIPs":["10.0.0.60"],"ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","ports":[{"port":80}]}`))
	// Orphans: an old IPAddress and port key of a Service that is gone,
	// and young ones, which may belong to a create in flight.
	f.a.now = func() time.Time { return old }
	if err := f.a.allocateIP(f.ctx, owner{Namespace: "ns", Name: "gone"}, mustAddr("10.0.0.70")); err != nil {
		t.Fatal(err)
	}
	if err := f.a.allocatePort(f.ctx, owner{Namespace: "ns", Name: "gone", UID: "u"}, 30200); err != nil {
		t.Fatal(err)
	}
	f.a.now = time.Now
	if err := f.a.allocateIP(f.ctx, owner{Namespace: "ns", Name: "inflight"}, mustAddr("10.0.0.71")); err != nil {
		t.Fatal(err)
	}
	if err := f.a.allocatePort(f.ctx, owner{Namespace: "ns", Name: "inflight", UID: "u"}, 30201); err != nil {
		t.Fatal(err)
	}

	if err := f.a.Repair(f.ctx, RepairGrace); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"10.0.0.50": "ns/lost", "10.0.0.60": "ns/owner", "10.0.0.71": "ns/inflight"}
	if got := f.held(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("IPAddresses after repair %v, want %v", got, want)
	}
	if got, want := f.ports(), map[string]string{"30100": "ns/lost", "30201": "ns/inflight"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("node ports after repair %v, want %v", got, want)
	}
	ip, err := f.stores.IPAddresses.Get(f.ctx, "", "10.0.0.50", storage.ReadOptions{})
	if err != nil || ip.Labels()["ipaddress.kubernetes.io/managed-by"] != ManagedBy || ip.Labels()["ipaddress.kubernetes.io/ip-family"] != "IPv4" {
		t.Errorf("recreated IPAddress: %v", err)
	}
	// Once old enough, the in-flight orphans go too.
	if err := f.a.Repair(f.ctx, 0); err != nil {
		t.Fatal(err)
	}
	if _, ok := f.held()["10.0.0.71"]; ok || f.ports()["30201"] != "" {
		t.Errorf("orphans past the grace kept: %v %v", f.held(), f.ports())
	}
}

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }

// An address released a moment ago is free at once, even while the cache
// the scan reads first still holds it: a full range's last address goes
// round from one Service to the next, as it does on kube.
func TestReleasedAddressOfFullRangeIsReused(t *testing.T) {
	f := newFixture(t, "10.0.0.0/29", "30000-30010")
	var last *unstructured.Unstructured
	for i := range 5 {
		last = f.allocate(svc(t, "ns", fmt.Sprintf("s%d", i), `{"ports":[{"port":80}]}`), nil)
	}
	for i := range 20 {
		f.a.Release(f.ctx, last)
		last = f.allocate(svc(t, "ns", fmt.Sprintf("next%d", i), `{"ports":[{"port":80}]}`), nil)
	}
	if len(f.held()) != 5 {
		t.Errorf("held: %v", f.held())
	}
}
