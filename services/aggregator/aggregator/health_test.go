package aggregator

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/kubesplit/kubesplit/pkg/health"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/apiservice"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/discovery"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/proxy"
	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"
)

// kubeRequired are the checks kube's conformance test "health handlers
// should contain necessary checks" requires on /livez and /healthz
// (test/e2e/apimachinery/health_handlers.go, with storage-readiness, its
// feature gate being on in 1.37); /readyz needs informer-sync too.
var kubeRequired = []string{
	"ping", "log", "etcd",
	"poststarthook/start-apiserver-admission-initializer",
	"poststarthook/generic-apiserver-start-informers",
	"poststarthook/start-apiextensions-informers",
	"poststarthook/start-apiextensions-controllers",
	"poststarthook/crd-informer-synced",
	"poststarthook/bootstrap-controller",
	"poststarthook/start-system-namespaces-controller",
	"poststarthook/start-service-ip-repair-controllers",
	"poststarthook/scheduling/bootstrap-system-priority-classes",
	"poststarthook/start-cluster-authentication-info-controller",
	"poststarthook/start-kube-aggregator-informers",
	"poststarthook/apiservice-registration-controller",
	"poststarthook/apiservice-status-local-available-controller",
	"poststarthook/apiservice-status-remote-available-controller",
	"poststarthook/kube-apiserver-autoregistration",
	"autoregister-completion",
	"poststarthook/apiservice-openapi-controller",
	"poststarthook/storage-readiness",
}

var quiet = slog.New(slog.DiscardHandler)

// fakeBackend stands for a kubesplit service's health endpoint (and, for
// the registry, its /apis and /openapi/v3): /readyz?verbose lists checks,
// a failed one making it 500.
type fakeBackend struct {
	srv    *httptest.Server
	checks atomic.Pointer[map[string]string] // name → failure ("" passes)
	hang   atomic.Bool                       // answer nothing until the client gives up
	groups []string                          // "group/version" served
	up     *upstream.Upstream
}

func newFakeBackend(t *testing.T, name string, checks map[string]string, groups ...string) *fakeBackend {
	t.Helper()
	b := &fakeBackend{groups: groups}
	b.set(checks)
	b.srv = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.srv.Close)
	up, err := upstream.New(upstream.Config{Name: name, URLs: []string{b.srv.URL}, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	up.Start(ctx)
	b.up = up
	return b
}

func (b *fakeBackend) set(checks map[string]string) { b.checks.Store(&checks) }

func (b *fakeBackend) serve(w http.ResponseWriter, r *http.Request) {
	if b.hang.Load() {
		<-r.Context().Done()
		return
	}
	switch r.URL.Path {
	case "/readyz":
		checks := *b.checks.Load()
		var lines []string
		code := http.StatusOK
		for _, name := range slices.Sorted(mapKeysOf(checks)) {
			if why := checks[name]; why != "" {
				lines, code = append(lines, "[-]"+name+" failed: "+why), http.StatusInternalServerError
			} else {
				lines = append(lines, "[+]"+name+" ok")
			}
		}
		w.WriteHeader(code)
		_, _ = w.Write([]byte(strings.Join(lines, "\n") + "\nreadyz check\n"))
	case "/apis":
		list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
		for _, gv := range b.groups {
			g, v, _ := strings.Cut(gv, "/")
			ver := metav1.GroupVersionForDiscovery{GroupVersion: gv, Version: v}
			list.Groups = append(list.Groups, metav1.APIGroup{Name: g, Versions: []metav1.GroupVersionForDiscovery{ver}, PreferredVersion: ver})
		}
		_ = json.NewEncoder(w).Encode(list)
	case "/openapi/v3":
		_, _ = w.Write([]byte(`{"paths":{}}`))
	default:
		http.NotFound(w, r)
	}
}

func mapKeysOf(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// healthyRegistry is what a ready registry's /readyz lists.
func healthyRegistry() map[string]string {
	return map[string]string{"ping": "", "etcd": "", "informer-sync": "", "storage-readiness": "", "crds-synced": ""}
}

// bootstrapped is what the registry's bootstrap writes that the checks
// look for, and the CRD controllers' Lease freshly renewed.
func bootstrapped(renewed time.Time) []runtime.Object {
	var objs []runtime.Object
	for _, ns := range systemNamespaces {
		objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}})
	}
	for _, pc := range systemPriorityClasses {
		objs = append(objs, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: pc}})
	}
	objs = append(objs,
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "cluster-admin"}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "cluster-admin"}})
	for _, name := range []string{"exempt", "catch-all"} {
		objs = append(objs, &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name}})
	}
	for _, name := range []string{"exempt", "catch-all", "global-default"} {
		objs = append(objs, &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name}})
	}
	holder, seconds := "registry-0", int32(15)
	objs = append(objs, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: crdControllerLease, Namespace: metav1.NamespaceSystem},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &seconds,
			RenewTime: &metav1.MicroTime{Time: renewed}},
	})
	return objs
}

// healthHarness is the aggregator's health endpoints over fakes of what
// they read.
type healthHarness struct {
	registry, authn *fakeBackend
	admission       *fakeBackend
	kube            *kubefake.Clientset
	apiServices     *dynamicfake.FakeDynamicClient
	published       *publication
	handler         http.Handler
}

type harnessOptions struct {
	objects   []runtime.Object // in the registry; bootstrapped(now) when nil
	groups    []string         // the registry's /apis
	admission bool
}

func newHealthHarness(t *testing.T, o harnessOptions) *healthHarness {
	t.Helper()
	if o.objects == nil {
		o.objects = bootstrapped(time.Now())
	}
	h := &healthHarness{
		registry:  newFakeBackend(t, registryUpstream, healthyRegistry(), o.groups...),
		authn:     newFakeBackend(t, authnUpstream, map[string]string{"ping": "", "serviceaccount-informer": ""}),
		kube:      kubefake.NewClientset(o.objects...),
		published: &publication{},
	}
	if o.admission {
		h.admission = newFakeBackend(t, admissionUpstream, map[string]string{"ping": "", "informers-synced": ""})
	}
	ups := map[string]*upstream.Upstream{registryUpstream: h.registry.up, authnUpstream: h.authn.up}
	backends := map[string]discovery.Backend{}
	for name, u := range ups {
		p, err := proxy.New(proxy.Config{Upstream: u, Log: quiet})
		if err != nil {
			t.Fatal(err)
		}
		backends[name] = p
	}
	_, routes, err := newAPIHandler(backends)
	if err != nil {
		t.Fatal(err)
	}
	h.apiServices = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{apiservice.GVR: "APIServiceList"})
	ctrl, err := apiservice.New(apiservice.Config{Client: h.apiServices, Routes: routes, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { ctrl.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	h.published.report(nil)
	d := healthDeps{ups: ups, kube: h.kube, registry: backends[registryUpstream], routes: routes, ctrl: ctrl,
		published: h.published, log: health.NewLogCheck(0)}
	if h.admission != nil {
		d.admission = h.admission.up
	}
	h.handler = probes(d)(http.NotFoundHandler())
	return h
}

func (h *healthHarness) get(path string) (int, string) {
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.String()
}

// until polls path until its body has every line of want.
func (h *healthHarness) until(t *testing.T, path string, want ...string) string {
	t.Helper()
	var body string
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, body = h.get(path)
		if missing := missingLines(body, want); len(missing) == 0 {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s lacks %v:\n%s", path, missingLines(body, want), body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func missingLines(body string, want []string) []string {
	lines := strings.Split(body, "\n")
	var missing []string
	for _, w := range want {
		if !slices.ContainsFunc(lines, func(l string) bool { return l == w || strings.HasPrefix(l, w) }) {
			missing = append(missing, w)
		}
	}
	return missing
}

func oks(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "[+]" + n + " ok"
	}
	return out
}

// Every check kube's conformance test requires is listed, ok, on all
// three endpoints when what they stand for is so, with the upstream
// checks on /readyz.
func TestHealthListsKubesChecks(t *testing.T) {
	h := newHealthHarness(t, harnessOptions{})
	h.until(t, "/readyz?verbose", oks(append(kubeRequired, "informer-sync", "upstream-registry", "upstream-authn")...)...)
	for _, p := range []string{"/livez?verbose", "/healthz?verbose"} {
		body := h.until(t, p, oks(kubeRequired...)...)
		if strings.Contains(body, "]informer-sync ") || strings.Contains(body, "]upstream-") {
			t.Errorf("%s lists readiness checks:\n%s", p, body)
		}
	}
	for _, p := range []string{"/readyz", "/livez", "/healthz"} {
		if code, body := h.get(p); code != http.StatusOK || body != "ok" {
			t.Errorf("%s = %d %q", p, code, body)
		}
	}
	if code, _ := h.get("/readyz/poststarthook/scheduling/bootstrap-system-priority-classes"); code != http.StatusOK {
		t.Errorf("a check by its name, slashes and all = %d", code)
	}
	if code, body := h.get("/readyz?verbose&exclude=etcd"); code != http.StatusOK || strings.Contains(body, "etcd ok") {
		t.Errorf("?exclude=etcd = %d:\n%s", code, body)
	}
}

// A registry whose etcd fails fails etcd everywhere and, on /readyz, what
// stands on etcd, with the registry's reason; /livez keeps the hooks that
// passed. Its informers are the registry's own; they keep passing.
func TestHealthFollowsTheRegistrysChecks(t *testing.T) {
	h := newHealthHarness(t, harnessOptions{})
	h.until(t, "/readyz?verbose", oks(kubeRequired...)...)
	h.until(t, "/livez?verbose", oks(kubeRequired...)...)
	checks := healthyRegistry()
	checks["etcd"] = "context deadline exceeded"
	h.registry.set(checks)
	reason := "registry " + h.registry.srv.URL + ": etcd: context deadline exceeded"
	body := h.until(t, "/readyz?verbose",
		"[-]etcd failed: "+reason,
		"[-]poststarthook/bootstrap-controller failed: "+reason,
		"[-]poststarthook/start-system-namespaces-controller failed: "+reason,
		"[-]poststarthook/scheduling/bootstrap-system-priority-classes failed: "+reason,
		"[-]poststarthook/start-apiserver-admission-initializer failed:",
		"[+]poststarthook/storage-readiness ok", "[+]informer-sync ok", "[+]poststarthook/apiservice-registration-controller ok")
	t.Logf("/readyz with etcd failing:\n%s", body)
	body = h.until(t, "/livez?verbose", "[-]etcd failed: "+reason)
	if missing := missingLines(body, oks(kubeRequired[3:]...)); len(missing) > 0 {
		t.Errorf("/livez lost hooks that had passed: %v\n%s", missing, body)
	}

	checks["etcd"], checks["crds-synced"] = "", "custom resources not yet served as the CRDs say"
	h.registry.set(checks)
	h.until(t, "/readyz?verbose", "[+]etcd ok",
		"[-]poststarthook/crd-informer-synced failed: registry "+h.registry.srv.URL+": crds-synced: custom resources not yet served",
		"[-]poststarthook/start-apiextensions-informers failed:")

	// A registry that serves a service-ip-repair check decides that hook.
	checks["crds-synced"], checks["service-ip-repair"] = "", "repair failed: conflict"
	h.registry.set(checks)
	h.until(t, "/readyz?verbose", "[-]poststarthook/start-service-ip-repair-controllers failed: registry "+h.registry.srv.URL+
		": service-ip-repair: repair failed: conflict")
}

// A registry that does not answer fails its checks in bounded time, with
// the reason, and never holds the answer.
func TestHealthOfAHungRegistryIsBounded(t *testing.T) {
	h := newHealthHarness(t, harnessOptions{})
	h.until(t, "/readyz?verbose", oks(kubeRequired...)...)
	h.registry.hang.Store(true)
	time.Sleep(remoteFresh) // the last answer expires
	start := time.Now()
	code, body := h.get("/readyz?verbose")
	took := time.Since(start)
	if code != http.StatusInternalServerError || took > remoteTimeout+time.Second {
		t.Errorf("/readyz with the registry hung = %d after %v, want 500 within %v:\n%s", code, took, remoteTimeout+time.Second, body)
	}
	if !strings.Contains(body, "[-]etcd failed: registry "+h.registry.srv.URL+": ") || !strings.Contains(body, "deadline exceeded") {
		t.Errorf("/readyz does not say the registry timed out:\n%s", body)
	}
	if !strings.Contains(body, "[+]poststarthook/start-kube-aggregator-informers ok") {
		t.Errorf("the aggregator's own hooks failed with the registry:\n%s", body)
	}
}

// What the registry's bootstrap writes, read through the API, decides the
// bootstrap hooks; the CRD controllers' Lease must be renewed in time.
func TestHealthReadsTheBootstrapAndTheLease(t *testing.T) {
	var objs []runtime.Object
	for _, o := range bootstrapped(time.Now().Add(-time.Hour)) {
		if pc, ok := o.(*schedulingv1.PriorityClass); ok && pc.Name == "system-node-critical" {
			continue
		}
		objs = append(objs, o)
	}
	h := newHealthHarness(t, harnessOptions{objects: objs})
	body := h.until(t, "/readyz?verbose",
		`[-]poststarthook/scheduling/bootstrap-system-priority-classes failed: priorityclasses.scheduling.k8s.io "system-node-critical" not found`,
		`[-]poststarthook/bootstrap-controller failed: priorityclasses.scheduling.k8s.io "system-node-critical" not found`,
		`[-]poststarthook/start-apiserver-admission-initializer failed: no admission upstream to ask; the registry's bootstrap`,
		"[+]poststarthook/start-system-namespaces-controller ok",
		"[-]poststarthook/start-apiextensions-controllers failed: the CRD controllers' Lease, held by registry-0, was last renewed 1h0m0s ago")
	if code, _ := h.get("/livez"); code != http.StatusInternalServerError {
		t.Errorf("/livez before the bootstrap was seen = %d, want 500:\n%s", code, body)
	}

	ctx := t.Context()
	if _, err := h.kube.SchedulingV1().PriorityClasses().Create(ctx,
		&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "system-node-critical"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	lease, err := h.kube.CoordinationV1().Leases(metav1.NamespaceSystem).Get(ctx, crdControllerLease, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lease.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
	if _, err := h.kube.CoordinationV1().Leases(metav1.NamespaceSystem).Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.until(t, "/readyz?verbose", oks(kubeRequired...)...)

	// Seen once, the bootstrap is not read again: an administrator's
	// change does not take readiness away.
	if err := h.kube.SchedulingV1().PriorityClasses().Delete(ctx, "system-node-critical", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(remoteFresh)
	if code, body := h.get("/readyz?verbose"); code != http.StatusOK {
		t.Errorf("/readyz after the bootstrap was seen and changed = %d:\n%s", code, body)
	}
}

// Every custom resource group version the registry serves needs its
// APIService (kube's autoregister-completion); built-in ones do not.
func TestHealthAutoregisterCompletion(t *testing.T) {
	h := newHealthHarness(t, harnessOptions{groups: []string{"apps/v1", "apiextensions.k8s.io/v1", "apiregistration.k8s.io/v1", "stable.example.com/v1"}})
	h.until(t, "/readyz?verbose", "[-]autoregister-completion failed: served but without an APIService: v1.stable.example.com",
		"[+]poststarthook/kube-apiserver-autoregistration ok")
	svc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1.stable.example.com"},
		"spec":     map[string]any{"group": "stable.example.com", "version": "v1", "groupPriorityMinimum": int64(1000), "versionPriority": int64(100)},
	}}
	if _, err := h.apiServices.Resource(apiservice.GVR).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.until(t, "/readyz?verbose", "[+]autoregister-completion ok", "[+]poststarthook/apiservice-status-local-available-controller ok")
}

// With an admission upstream, the admission initializer hook is its
// readiness; authn's readiness and the published authentication
// ConfigMap make the cluster authentication info hook.
func TestHealthOfAdmissionAndAuthn(t *testing.T) {
	h := newHealthHarness(t, harnessOptions{admission: true})
	h.until(t, "/readyz?verbose", oks(append(kubeRequired, "upstream-admission")...)...)
	h.admission.set(map[string]string{"ping": "", "informers-synced": "not synced"})
	h.authn.set(map[string]string{"ping": "", "serviceaccount-informer": "not synced"})
	h.until(t, "/readyz?verbose",
		"[-]poststarthook/start-apiserver-admission-initializer failed: admission "+h.admission.srv.URL+": not ready: informers-synced: not synced",
		"[-]poststarthook/start-cluster-authentication-info-controller failed: authn "+h.authn.srv.URL+": not ready: serviceaccount-informer: not synced",
		"[+]poststarthook/bootstrap-controller ok")
	h.authn.set(map[string]string{"ping": "", "serviceaccount-informer": ""})
	h.published.report(errors.New("the registry service is unavailable"))
	h.until(t, "/readyz?verbose", "[-]poststarthook/start-cluster-authentication-info-controller failed: "+
		"kube-system/extension-apiserver-authentication not written: the registry service is unavailable")
}

// A shared check's answer serves later checks for remoteFresh when it
// passed, and for failedFresh only when it failed, so that a starting
// stack is ready within a probe's interval of its last check passing.
func TestSharedCheckAsksAgainSoonerAfterAFailure(t *testing.T) {
	clock := time.Unix(0, 0)
	var fetches atomic.Int32
	failing := errors.New("not yet")
	c := newSharedErr(func(context.Context) error {
		fetches.Add(1)
		return failing
	})
	c.s.now = func() time.Time { return clock }
	ask := func() error { return c.get(t.Context()) }

	if err := ask(); err != failing || fetches.Load() != 1 {
		t.Fatalf("first: %v after %d fetches", err, fetches.Load())
	}
	clock = clock.Add(failedFresh / 2)
	if _ = ask(); fetches.Load() != 1 {
		t.Errorf("a failure was asked again after %v, want it kept for %v", failedFresh/2, failedFresh)
	}
	failing = nil
	clock = clock.Add(failedFresh)
	if err := ask(); err != nil || fetches.Load() != 2 {
		t.Errorf("after failedFresh: %v after %d fetches, want a new fetch that passes", err, fetches.Load())
	}
	clock = clock.Add(remoteFresh / 2)
	if _ = ask(); fetches.Load() != 2 {
		t.Errorf("a pass was asked again after %v, want it kept for %v", remoteFresh/2, remoteFresh)
	}
}
