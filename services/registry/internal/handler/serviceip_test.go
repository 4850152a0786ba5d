package handler

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/registry/embedetcd/etcdtest"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/serviceip"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

const (
	svcPath = "/api/v1/namespaces/ns/services"
	ipPath  = "/apis/networking.k8s.io/v1/ipaddresses"
)

var mergePatch = []string{"Content-Type", "application/merge-patch+json"}

// newServiceIPEnv is newEnvWith's registry over client's etcd (which
// several envs of one test may share, as registry replicas do), with
// Services' cluster IPs and node ports allocated from cidrs and ports.
// Namespace "ns" is created unless it exists.
func newServiceIPEnv(t *testing.T, client *clientv3.Client, adm Admission, cidrs, ports string) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	backend := storage.NewBackend(ctx, client)
	var stores []*storage.Store
	var sip serviceip.Stores
	for _, info := range resource.Builtins() {
		s := backend.NewStore(info, storage.StoreOptions{})
		stores = append(stores, s)
		switch {
		case info.Group == "" && info.Resource == "services":
			sip.Services = s
		case info.Group == "networking.k8s.io" && info.Resource == "ipaddresses":
			sip.IPAddresses = s
		case info.Group == "networking.k8s.io" && info.Resource == "servicecidrs":
			sip.ServiceCIDRs = s
		}
	}
	for _, s := range stores {
		if _, err := s.Get(ctx, "", "none", storage.ReadOptions{ResourceVersion: "0"}); !apierrors.IsNotFound(err) {
			t.Fatalf("%s cache: %v", s.Info().Resource, err)
		}
	}
	cidrList, err := serviceip.ParseServiceCIDRs(cidrs)
	if err != nil {
		t.Fatal(err)
	}
	portRange, err := serviceip.ParseNodePortRange(ports)
	if err != nil {
		t.Fatal(err)
	}
	alloc, err := serviceip.New(client, sip, serviceip.Config{ServiceCIDRs: cidrList, NodePorts: portRange})
	if err != nil {
		t.Fatal(err)
	}
	sip.Services.Info().Allocator = alloc
	if err := alloc.EnsureDefaultServiceCIDR(ctx); err != nil {
		t.Fatal(err)
	}
	h := New(stores, adm)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	t.Cleanup(h.Shutdown)
	e := &env{t: t, url: srv.URL, client: client, h: h, backend: backend}
	if resp, body := e.do("POST", "/api/v1/namespaces", `{"metadata":{"name":"ns"}}`); resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusConflict {
		t.Fatalf("namespace: %d %s", resp.StatusCode, body)
	}
	return e
}

func newServiceEnv(t *testing.T) *env {
	t.Helper()
	_, client := etcdtest.Start(t)
	return newServiceIPEnv(t, client, Admission{}, serviceip.DefaultServiceClusterIPRange, serviceip.DefaultServiceNodePortRange)
}

func service(name, spec string) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":%q},"spec":%s}`, name, spec)
}

// failure makes a call that must fail with code and returns the message
// of its Status.
func (e *env) failure(method, path, body string, code int, header ...string) string {
	e.t.Helper()
	return str(e.mustDo(method, path, body, code, header...), "message")
}

// ipAddresses are the IPAddresses by name, with the Service each names.
func (e *env) ipAddresses() map[string]string {
	e.t.Helper()
	out := map[string]string{}
	for _, item := range e.mustDo("GET", ipPath, "", http.StatusOK)["items"].([]any) {
		m := item.(map[string]any)
		out[str(m, "metadata.name")] = str(m, "spec.parentRef.namespace") + "/" + str(m, "spec.parentRef.name")
	}
	return out
}

// nodePortKeys are the node ports held in etcd.
func (e *env) nodePortKeys() map[string]bool {
	e.t.Helper()
	resp, err := e.client.Get(context.Background(), serviceip.NodePortPrefix, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]bool{}
	for _, kv := range resp.Kvs {
		out[strings.TrimPrefix(string(kv.Key), serviceip.NodePortPrefix)] = true
	}
	return out
}

func nodePort(svc map[string]any, i int) string {
	return fmt.Sprint(at(svc, "spec.ports").([]any)[i].(map[string]any)["nodePort"])
}

// A ClusterIP Service gets an address of the range, held by an IPAddress
// naming it; one it names is honoured, one taken is refused as kube refuses
// it with nothing stored; headless and ExternalName Services get none; a
// delete gives the address back.
func TestServiceClusterIPIsAllocated(t *testing.T) {
	e := newServiceEnv(t)
	a := e.mustDo("POST", svcPath, service("a", `{"selector":{"app":"a"},"ports":[{"port":80}]}`), http.StatusCreated)
	ip := str(a, "spec.clusterIP")
	addr, err := netip.ParseAddr(ip)
	if err != nil || !netip.MustParsePrefix("10.0.0.0/24").Contains(addr) || ip == "10.0.0.0" || ip == "10.0.0.1" || ip == "10.0.0.255" {
		t.Fatalf("clusterIP %q, want a free address of 10.0.0.0/24", ip)
	}
	for path, want := range map[string]string{"spec.clusterIPs": "[" + ip + "]", "spec.ipFamilies": "[IPv4]", "spec.ipFamilyPolicy": "SingleStack"} {
		if got := str(a, path); got != want {
			t.Errorf("%s = %s, want %s", path, got, want)
		}
	}
	obj := e.mustDo("GET", ipPath+"/"+ip, "", http.StatusOK)
	for path, want := range map[string]string{
		"spec.parentRef.resource": "services", "spec.parentRef.namespace": "ns", "spec.parentRef.name": "a",
	} {
		if got := str(obj, path); got != want {
			t.Errorf("IPAddress %s = %q, want %q", path, got, want)
		}
	}
	labels, _ := at(obj, "metadata.labels").(map[string]any)
	if labels["ipaddress.kubernetes.io/managed-by"] != "ipallocator.k8s.io" || labels["ipaddress.kubernetes.io/ip-family"] != "IPv4" {
		t.Errorf("IPAddress labels %v", labels)
	}

	b := e.mustDo("POST", svcPath, service("b", `{"clusterIP":"10.0.0.5","ports":[{"port":80}]}`), http.StatusCreated)
	if str(b, "spec.clusterIP") != "10.0.0.5" || e.ipAddresses()["10.0.0.5"] != "ns/b" {
		t.Fatalf("the address asked for: %v, IPAddresses %v", str(b, "spec.clusterIP"), e.ipAddresses())
	}
	before := e.etcdState()
	for name, want := range map[string]string{
		"c": `Service "c" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.5"]: failed to allocate IP 10.0.0.5: provided IP is already allocated`,
		"d": `Service "d" is invalid: spec.clusterIPs: Invalid value: ["10.1.0.5"]: failed to allocate IP 10.1.0.5: the provided network does not match the current range`,
		// The first address is the kubernetes Service's.
		"k": `Service "k" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.1"]: failed to allocate IP 10.0.0.1: provided IP is already allocated`,
		"6": `Service "6" is invalid: spec.clusterIPs[0]: Invalid value: ["fd00::5"]: IPv6 is not configured on this cluster`,
		"r": `Service "r" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services`,
	} {
		spec := map[string]string{"c": `"clusterIP":"10.0.0.5"`, "d": `"clusterIP":"10.1.0.5"`, "k": `"clusterIP":"10.0.0.1"`,
			"6": `"clusterIP":"fd00::5"`, "r": `"ipFamilyPolicy":"RequireDualStack"`}[name]
		if got := e.failure("POST", svcPath, service(name, `{`+spec+`,"ports":[{"port":80}]}`), http.StatusUnprocessableEntity); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	e.untouched(before, "refused addresses")

	ips := e.ipAddresses()
	h := e.mustDo("POST", svcPath, service("h", `{"clusterIP":"None","selector":{"a":"b"},"ports":[{"port":80}]}`), http.StatusCreated)
	hs := e.mustDo("POST", svcPath, service("hs", `{"clusterIP":"None","ports":[{"port":80}]}`), http.StatusCreated)
	x := e.mustDo("POST", svcPath, service("x", `{"type":"ExternalName","externalName":"example.com"}`), http.StatusCreated)
	for _, c := range []struct {
		svc                          map[string]any
		clusterIPs, families, policy string
	}{{h, "[None]", "[IPv4]", "SingleStack"}, {hs, "[None]", "[IPv4 IPv6]", "RequireDualStack"}, {x, "", "", ""}} {
		if str(c.svc, "spec.clusterIPs") != c.clusterIPs || str(c.svc, "spec.ipFamilies") != c.families || str(c.svc, "spec.ipFamilyPolicy") != c.policy {
			t.Errorf("%s: clusterIPs %s ipFamilies %s ipFamilyPolicy %s", str(c.svc, "metadata.name"),
				str(c.svc, "spec.clusterIPs"), str(c.svc, "spec.ipFamilies"), str(c.svc, "spec.ipFamilyPolicy"))
		}
	}
	if got := e.ipAddresses(); len(got) != len(ips) {
		t.Errorf("headless and ExternalName Services took addresses: %v", got)
	}

	e.mustDo("DELETE", svcPath+"/b", "", http.StatusOK)
	e.mustDo("GET", ipPath+"/10.0.0.5", "", http.StatusNotFound)
	e.mustDo("POST", svcPath, service("b2", `{"clusterIP":"10.0.0.5","ports":[{"port":80}]}`), http.StatusCreated)
}

// A create or update refused after its allocation (by validation, by
// admission, by a conflict) leaves nothing allocated.
func TestServiceRefusedWriteReleasesWhatItWasGiven(t *testing.T) {
	_, client := etcdtest.Start(t)
	deny := admission.AdmitterFunc(func(ctx context.Context, a *admission.Attributes) (*admission.Result, error) {
		if a.Name == "denied" {
			return admission.Deny(http.StatusForbidden, "not this one"), nil
		}
		return admission.Allow(), nil
	})
	e := newServiceIPEnv(t, client, Admission{Validating: deny}, "10.0.0.0/24", "30000-32767")
	before := len(e.ipAddresses())
	// Validation: the address asked for, a free one, a node port.
	e.failure("POST", svcPath, service("bad", `{"clusterIP":"10.0.0.9","ports":[{"port":0}]}`), http.StatusUnprocessableEntity)
	e.failure("POST", svcPath, service("bad", `{"type":"NodePort","ports":[{"port":80,"nodePort":30009,"protocol":"SCTPX"}]}`), http.StatusUnprocessableEntity)
	// Validating admission sees the allocated values and refuses.
	e.failure("POST", svcPath, service("denied", `{"type":"LoadBalancer","externalTrafficPolicy":"Local","ports":[{"port":80}]}`), http.StatusForbidden)
	if ips, ports := e.ipAddresses(), e.nodePortKeys(); len(ips) != before || len(ports) != 0 {
		t.Fatalf("refused creates left IPAddresses %v, node ports %v", ips, ports)
	}
	e.mustDo("GET", ipPath+"/10.0.0.9", "", http.StatusNotFound)

	// A create of a name taken.
	e.mustDo("POST", svcPath, service("taken", `{"ports":[{"port":80}]}`), http.StatusCreated)
	ips := e.ipAddresses()
	e.failure("POST", svcPath, service("taken", `{"type":"NodePort","ports":[{"port":80}]}`), http.StatusConflict)
	if got := e.ipAddresses(); len(got) != len(ips) || len(e.nodePortKeys()) != 0 {
		t.Errorf("a create of a taken name left %v, %v", got, e.nodePortKeys())
	}
	before = len(ips)

	// An update turning the Service into a NodePort one, refused.
	svc := e.mustDo("POST", svcPath, service("u", `{"selector":{"a":"b"},"ports":[{"port":80}]}`), http.StatusCreated)
	e.failure("PATCH", svcPath+"/u", `{"spec":{"type":"NodePort","sessionAffinity":"Sometimes"}}`, http.StatusUnprocessableEntity, mergePatch...)
	// A stale resourceVersion: 409 before anything is allocated.
	svc["spec"].(map[string]any)["type"] = "NodePort"
	svc["metadata"].(map[string]any)["resourceVersion"] = "1"
	stale, _ := json.Marshal(svc)
	e.failure("PUT", svcPath+"/u", string(stale), http.StatusConflict)
	if ports := e.nodePortKeys(); len(ports) != 0 {
		t.Errorf("refused updates left node ports %v", ports)
	}
	// A dry run takes nothing and answers as kube does.
	dry := e.mustDo("PATCH", svcPath+"/u?dryRun=All", `{"spec":{"type":"NodePort"}}`, http.StatusOK, mergePatch...)
	if nodePort(dry, 0) != "32769" || len(e.nodePortKeys()) != 0 {
		t.Errorf("dry run: nodePort %s, node ports %v", nodePort(dry, 0), e.nodePortKeys())
	}
	dry = e.mustDo("POST", svcPath+"?dryRun=All", service("dry", `{"ports":[{"port":80}]}`), http.StatusCreated)
	if str(dry, "spec.clusterIP") != "10.0.0.0" || len(e.ipAddresses()) != before+1 {
		t.Errorf("dry run: clusterIP %s, IPAddresses %v", str(dry, "spec.clusterIP"), e.ipAddresses())
	}
}

// NodePort and LoadBalancer Services get node ports of the range; one asked
// for is honoured, one taken refused as kube refuses it; a type change to
// NodePort allocates, back to ClusterIP releases.
func TestServiceNodePortsAreAllocated(t *testing.T) {
	e := newServiceEnv(t)
	n := e.mustDo("POST", svcPath, service("n", `{"type":"NodePort","ports":[{"port":80,"nodePort":30080}]}`), http.StatusCreated)
	if nodePort(n, 0) != "30080" || !e.nodePortKeys()["30080"] {
		t.Fatalf("nodePort %s, keys %v", nodePort(n, 0), e.nodePortKeys())
	}
	ips := len(e.ipAddresses())
	for name, c := range map[string]struct{ spec, want string }{
		"n2": {`{"type":"NodePort","ports":[{"port":80,"nodePort":30080}]}`,
			`Service "n2" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated`},
		"n3": {`{"type":"NodePort","ports":[{"port":80,"nodePort":40000}]}`,
			`Service "n3" is invalid: spec.ports[0].nodePort: Invalid value: 40000: provided port is not in the valid range. The range of valid ports is 30000-32767`},
	} {
		if got := e.failure("POST", svcPath, service(name, c.spec), http.StatusUnprocessableEntity); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, c.want)
		}
	}
	if got := len(e.ipAddresses()); got != ips {
		t.Errorf("the refused Services' cluster IPs were kept: %d IPAddresses, want %d", got, ips)
	}

	lb := e.mustDo("POST", svcPath, service("lb", `{"type":"LoadBalancer","externalTrafficPolicy":"Local","ports":[{"port":80,"name":"a"},{"port":81,"name":"b"}]}`), http.StatusCreated)
	got := map[string]bool{}
	for _, p := range []string{nodePort(lb, 0), nodePort(lb, 1), str(lb, "spec.healthCheckNodePort")} {
		var port int
		if _, err := fmt.Sscan(p, &port); err != nil || port < 30000 || port > 32767 || got[p] || !e.nodePortKeys()[p] {
			t.Errorf("LoadBalancer node port %s: out of range, repeated or not held", p)
		}
		got[p] = true
	}

	e.mustDo("POST", svcPath, service("c", `{"selector":{"a":"b"},"ports":[{"port":80}]}`), http.StatusCreated)
	c := e.mustDo("PATCH", svcPath+"/c", `{"spec":{"type":"NodePort"}}`, http.StatusOK, mergePatch...)
	port := nodePort(c, 0)
	if !e.nodePortKeys()[port] {
		t.Fatalf("ClusterIP to NodePort: nodePort %s not held", port)
	}
	c = e.mustDo("PATCH", svcPath+"/c", `{"spec":{"type":"ClusterIP"}}`, http.StatusOK, mergePatch...)
	if nodePort(c, 0) != "<nil>" || e.nodePortKeys()[port] {
		t.Fatalf("NodePort to ClusterIP: nodePort %s, keys %v", nodePort(c, 0), e.nodePortKeys())
	}
	e.mustDo("POST", svcPath, service("again", `{"type":"NodePort","ports":[{"port":80,"nodePort":`+port+`}]}`), http.StatusCreated)

	// A manifest resubmitted without them keeps the allocated values.
	n = e.mustDo("PUT", svcPath+"/n", service("n", `{"type":"NodePort","ports":[{"port":80}]}`), http.StatusOK)
	if nodePort(n, 0) != "30080" || str(n, "spec.clusterIP") == "" {
		t.Errorf("resubmitted: nodePort %s clusterIP %s", nodePort(n, 0), str(n, "spec.clusterIP"))
	}
	e.mustDo("DELETE", svcPath+"/lb", "", http.StatusOK)
	for p := range got {
		if e.nodePortKeys()[p] {
			t.Errorf("node port %s of the deleted Service is still held", p)
		}
	}
}

// Concurrent updates of one Service, retried by the store when they
// collide, leave it holding only the node port it ends with.
func TestServiceConcurrentUpdatesKeepOnlyTheLastPort(t *testing.T) {
	e := newServiceEnv(t)
	e.mustDo("POST", svcPath, service("t", `{"type":"NodePort","ports":[{"port":80,"nodePort":30100}]}`), http.StatusCreated)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if resp, body := e.do("PATCH", svcPath+"/t", fmt.Sprintf(`{"spec":{"ports":[{"port":80,"nodePort":%d}]}}`, 30101+i), mergePatch...); resp.StatusCode != http.StatusOK {
				t.Errorf("update %d: %d %s", i, resp.StatusCode, body)
			}
		})
	}
	wg.Wait()
	final := nodePort(e.mustDo("GET", svcPath+"/t", "", http.StatusOK), 0)
	if keys := e.nodePortKeys(); len(keys) != 1 || !keys[final] {
		t.Errorf("the Service ends with node port %s; held: %v", final, keys)
	}
}

// A Service removed by an update (its last finalizer gone while being
// deleted) gives back what it held.
func TestServiceDeletedByFinalizerRemovalReleases(t *testing.T) {
	e := newServiceEnv(t)
	svc := e.mustDo("POST", svcPath, `{"apiVersion":"v1","kind":"Service","metadata":{"name":"f","finalizers":["example.com/x"]},"spec":{"type":"NodePort","ports":[{"port":80}]}}`, http.StatusCreated)
	e.mustDo("DELETE", svcPath+"/f", "", http.StatusOK)
	e.mustDo("PATCH", svcPath+"/f", `{"metadata":{"finalizers":null}}`, http.StatusOK, mergePatch...)
	e.mustDo("GET", svcPath+"/f", "", http.StatusNotFound)
	if _, ok := e.ipAddresses()[str(svc, "spec.clusterIP")]; ok || len(e.nodePortKeys()) != 0 {
		t.Errorf("the deleted Service still holds %v, %v", e.ipAddresses(), e.nodePortKeys())
	}
}

// A full range answers kube's errors, and the create that failed holds
// nothing.
func TestServiceFullRange(t *testing.T) {
	_, client := etcdtest.Start(t)
	// Six addresses, the first the kubernetes Service's; three ports.
	e := newServiceIPEnv(t, client, Admission{}, "10.0.0.0/29", "30000-30002")
	for i := range 5 {
		e.mustDo("POST", svcPath, service(fmt.Sprintf("s%d", i), `{"ports":[{"port":80}]}`), http.StatusCreated)
	}
	resp, body := e.do("POST", svcPath, service("s5", `{"ports":[{"port":80}]}`))
	if resp.StatusCode != http.StatusInternalServerError ||
		!strings.Contains(string(body), `"message":"Internal error occurred: failed to allocate a serviceIP for Service \"s5\": range is full"`) {
		t.Errorf("full cluster IP range: %d %s", resp.StatusCode, body)
	}
	e.mustDo("DELETE", svcPath+"/s4", "", http.StatusOK)
	e.mustDo("POST", svcPath, service("n", `{"type":"NodePort","ports":[{"port":80,"name":"a"},{"port":81,"name":"b"},{"port":82,"name":"c"}]}`), http.StatusCreated)
	e.mustDo("DELETE", svcPath+"/s3", "", http.StatusOK)
	ips := e.ipAddresses()
	resp, body = e.do("POST", svcPath, service("n2", `{"type":"NodePort","ports":[{"port":80}]}`))
	if resp.StatusCode != http.StatusInternalServerError ||
		!strings.Contains(string(body), `"message":"Internal error occurred: failed to allocate a nodePort: range is full"`) {
		t.Errorf("full node port range: %d %s", resp.StatusCode, body)
	}
	if got := e.ipAddresses(); len(got) != len(ips) {
		t.Errorf("the failed create kept its cluster IP: %v", got)
	}
}

// Concurrent creates through two registries sharing one etcd never give
// one address or node port to two Services.
func TestServiceConcurrentCreatesOnTwoRegistries(t *testing.T) {
	endpoint, client := etcdtest.Start(t)
	envs := []*env{
		newServiceIPEnv(t, client, Admission{}, "10.0.0.0/24", "30000-32767"),
		newServiceIPEnv(t, etcdtest.Connect(t, endpoint), Admission{}, "10.0.0.0/24", "30000-32767"),
	}
	const n = 50
	type result struct {
		code     int
		ip, port string
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			resp, body := envs[i%2].do("POST", svcPath, service(fmt.Sprintf("s%d", i), `{"type":"NodePort","ports":[{"port":80}]}`))
			results[i].code = resp.StatusCode
			if resp.StatusCode == http.StatusCreated {
				obj := map[string]any{}
				_ = json.Unmarshal(body, &obj)
				results[i].ip, results[i].port = str(obj, "spec.clusterIP"), nodePort(obj, 0)
			}
		})
	}
	wg.Wait()
	ips, ports := map[string]int{}, map[string]int{}
	for i, r := range results {
		if r.code != http.StatusCreated {
			t.Fatalf("create %d: %d", i, r.code)
		}
		if j, ok := ips[r.ip]; ok {
			t.Errorf("Services %d and %d both got %s", j, i, r.ip)
		}
		if j, ok := ports[r.port]; ok {
			t.Errorf("Services %d and %d both got node port %s", j, i, r.port)
		}
		ips[r.ip], ports[r.port] = i, i
	}
	held := envs[1].ipAddresses()
	for ip, i := range ips {
		if held[ip] != fmt.Sprintf("ns/s%d", i) {
			t.Errorf("%s is held for %q, want ns/s%d", ip, held[ip], i)
		}
	}
	if len(held) != n || len(envs[0].nodePortKeys()) != n {
		t.Errorf("%d IPAddresses and %d node ports for %d Services", len(held), len(envs[0].nodePortKeys()), n)
	}
}
