package e2e

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

const (
	monitorToken = "monitor-token-0123456789"
	nobodysToken = "nobody-metrics-token-0123456789"
)

// metricsUsers are the token file lines of a reader of /metrics
// (system:monitoring, kube's role for scrapers) and of a user who may not.
var metricsUsers = []string{
	monitorToken + `,monitor,uid-monitor,"system:monitoring"`,
	nobodysToken + `,nobody,uid-nobody,"others"`,
}

// scrape reads the aggregator's /metrics as the token's user.
func scrape(t *testing.T, s *framework.Stack, token string) (int, string) {
	t.Helper()
	code, _, body := stackDo(t, s, http.MethodGet, "/metrics", token, "")
	return code, body
}

// get reads path of a backend stage with a bearer token (none when
// empty): a scraper reaching a replica directly.
func get(t *testing.T, s *framework.Stack, stage, path, token string) (int, string) {
	t.Helper()
	resp, body := httpGet(t, s.BackendClient(t), s.BackendURL(stage)+path, token)
	return resp.StatusCode, body
}

// sample sums the samples of metric name in a Prometheus text body whose
// labels include every label="value" given: 0 when there is none.
func sample(t *testing.T, body, name string, labels ...string) float64 {
	t.Helper()
	var sum float64
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		if !hasLabels(line, labels) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		sum += v
	}
	return sum
}

func hasLabels(line string, labels []string) bool {
	for _, l := range labels {
		if !strings.Contains(line, l) {
			return false
		}
	}
	return true
}

// The aggregator's /metrics is authorized like kube's (system:monitoring
// may read it, others not), is in Prometheus's format with kube's names,
// and its request counter moves with the requests it serves.
func TestAggregatorMetrics(t *testing.T) {
	s := framework.StartStack(t, framework.StackOptions{Users: metricsUsers})
	if code, _ := scrape(t, s, nobodysToken); code != http.StatusForbidden {
		t.Errorf("a user outside system:monitoring reading /metrics: %d, want 403", code)
	}
	code, before := scrape(t, s, monitorToken)
	if code != http.StatusOK {
		t.Fatalf("system:monitoring reading /metrics: %d", code)
	}
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes", "apiserver_current_inflight_requests", "authorization_attempts_total"} {
		if !regexp.MustCompile(`(?m)^` + name).MatchString(before) {
			t.Errorf("/metrics lacks %s", name)
		}
	}
	if code, _ := scrape(t, s, "not-a-token-0123456789"); code != http.StatusUnauthorized {
		t.Fatalf("a bad token reading /metrics: %d, want 401", code)
	}
	// The aggregator's own profiles: cluster admins only, as in kube.
	for token, want := range map[string]int{monitorToken: http.StatusForbidden, s.AdminToken: http.StatusOK} {
		if code, _, body := stackDo(t, s, http.MethodGet, "/debug/pprof/", token, ""); code != want || (want == http.StatusOK && !strings.Contains(body, "goroutine")) {
			t.Errorf("/debug/pprof/ as %s: %d, want %d", token, code, want)
		}
	}
	admin := s.Client(t, s.AdminToken)
	for _, name := range []string{"m1", "m2", "m3"} {
		if _, err := admin.CoreV1().ConfigMaps("default").Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	_, after := scrape(t, s, monitorToken)
	creates := []string{`code="201"`, `component="apiserver"`, `group=""`, `resource="configmaps"`, `scope="namespace"`, `verb="POST"`}
	grew := func(name string, labels ...string) float64 {
		return sample(t, after, name, labels...) - sample(t, before, name, labels...)
	}
	if got := grew("apiserver_request_total", creates...); got != 3 {
		t.Errorf("apiserver_request_total for config map creates grew by %v, want 3", got)
	}
	if got := grew("apiserver_request_duration_seconds_count", creates[1:]...); got != 3 {
		t.Errorf("apiserver_request_duration_seconds for config map creates grew by %v, want 3", got)
	}
	if got := grew("authentication_attempts", `result="failure"`); got != 1 {
		t.Errorf(`authentication_attempts{result="failure"} grew by %v, want 1`, got)
	}
	if sample(t, after, "authentication_attempts", `result="success"`) == 0 {
		t.Error("no successful authentication counted")
	}
	// Three creates went to the registry; the monitor's second scrape was
	// authorized from the cache, the first asked authz.
	if got := grew("kubesplit_stage_request_duration_seconds_count", `stage="registry"`); got < 3 {
		t.Errorf("registry stage calls grew by %v, want at least 3", got)
	}
	if sample(t, after, "kubesplit_authorization_cache_request_total", `status="hit"`) == 0 ||
		sample(t, after, "kubesplit_authorization_cache_request_total", `status="miss"`) == 0 {
		t.Errorf("authorization cache lookups not counted as a miss then a hit:\n%s", grepLines(after, "kubesplit_authorization_cache"))
	}
}

// A token the aggregator has not seen is a cache miss and a call to
// authn; the same token again is a hit and no call.
func TestAggregatorAuthenticationCacheMetrics(t *testing.T) {
	s := framework.StartStack(t, framework.StackOptions{Users: metricsUsers})
	admin := s.Client(t, s.AdminToken)
	const ns, account = "cached", "reader"
	createNamespace(t, admin, ns)
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx(t), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: account}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	token := serviceAccountToken(t, admin, ns, account)
	_, before := scrape(t, s, monitorToken)
	stackDo(t, s, http.MethodGet, "/api/v1/namespaces/"+ns+"/configmaps", token, "")
	_, first := scrape(t, s, monitorToken)
	stackDo(t, s, http.MethodGet, "/api/v1/namespaces/"+ns+"/configmaps", token, "")
	_, second := scrape(t, s, monitorToken)
	delta := func(from, to, name string, labels ...string) float64 {
		return sample(t, to, name, labels...) - sample(t, from, name, labels...)
	}
	// The token-file user's scrapes never reach the cache: the aggregator
	// knows static tokens itself.
	if got := delta(before, first, "authentication_token_cache_request_total", `status="miss"`); got != 1 {
		t.Errorf("a new token: %v cache misses, want 1", got)
	}
	if got := delta(before, first, "kubesplit_stage_request_duration_seconds_count", `stage="authn"`); got != 1 {
		t.Errorf("a new token: %v calls to authn, want 1", got)
	}
	if got := delta(first, second, "authentication_token_cache_request_total", `status="hit"`); got != 1 {
		t.Errorf("the same token again: %v cache hits, want 1", got)
	}
	if got := delta(first, second, "kubesplit_stage_request_duration_seconds_count", `stage="authn"`); got != 0 {
		t.Errorf("the same token again: %v calls to authn, want 0", got)
	}
}

// Every backend serves its own /metrics to the readers the API vouches
// for, as kube's components do: a scraper reaches each replica directly
// with its token, which the backend checks with a TokenReview and a
// SubjectAccessReview through the aggregator. Each counts the requests it
// serves, and the registry its objects, its etcd calls and its calls to
// admission.
func TestEveryServiceServesMetrics(t *testing.T) {
	s := framework.StartStack(t, framework.StackOptions{Users: metricsUsers})
	backends := []string{framework.StageRegistry, framework.StageAuthn, framework.StageAuthz, framework.StageAdmission}
	for _, stage := range backends {
		for _, c := range []struct {
			path, token string
			want        int
		}{
			{"/metrics", "", http.StatusUnauthorized},
			{"/metrics", "not-a-token-0123456789", http.StatusUnauthorized},
			{"/metrics", nobodysToken, http.StatusForbidden},
			{"/debug/pprof/", monitorToken, http.StatusForbidden},
			{"/debug/pprof/", s.AdminToken, http.StatusOK},
		} {
			if code, body := get(t, s, stage, c.path, c.token); code != c.want {
				t.Errorf("%s %s with token %q: %d, want %d: %s", stage, c.path, c.token, code, c.want, body)
			}
		}
	}
	admin := s.Client(t, s.AdminToken)
	const ns = "measured"
	createNamespace(t, admin, ns)
	quotaConfigMaps(t, admin, ns)
	before := map[string]string{}
	for _, stage := range backends {
		code, body := get(t, s, stage, "/metrics", monitorToken)
		if code != http.StatusOK {
			t.Fatalf("system:monitoring reading %s's /metrics: %d %s", stage, code, body)
		}
		before[stage] = body
	}
	for i := range 3 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("m%d", i)}}
		if _, err := admin.CoreV1().ConfigMaps(ns).Create(ctx(t), cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// A user authz has not answered for yet, so the aggregator asks it.
	stackDo(t, s, http.MethodGet, "/api/v1/namespaces/"+ns+"/configmaps", nobodysToken, "")
	after := map[string]string{}
	scrapeAll := func() {
		for _, stage := range backends {
			_, after[stage] = get(t, s, stage, "/metrics", monitorToken)
		}
	}
	grew := func(stage, name string, labels ...string) float64 {
		return sample(t, after[stage], name, labels...) - sample(t, before[stage], name, labels...)
	}
	objects := `resource="configmaps"`
	// The object count is read from the watch cache, which follows etcd.
	polltest.Until(t, 10*time.Second, "apiserver_storage_objects to count the creates", func() bool {
		scrapeAll()
		return grew(framework.StageRegistry, "apiserver_storage_objects", objects) >= 3
	})
	for _, c := range []struct {
		stage, name string
		labels      []string
		atLeast     float64
	}{
		{framework.StageRegistry, "apiserver_request_total", []string{`component="registry"`, `resource="configmaps"`, `verb="POST"`, `code="201"`}, 3},
		{framework.StageRegistry, "etcd_request_duration_seconds_count", []string{`operation="create"`, `group=""`, `resource="configmaps"`}, 3},
		{framework.StageRegistry, "kubesplit_stage_request_duration_seconds_count", []string{`stage="admission"`}, 3},
		{framework.StageAdmission, "apiserver_request_total", []string{`component="admission"`, `code="200"`}, 3},
		{framework.StageAuthz, "apiserver_request_total", []string{`component="authz"`, `resource="subjectaccessreviews"`}, 1},
		{framework.StageAuthn, "apiserver_request_total", []string{`component="authn"`}, 1},
	} {
		if got := grew(c.stage, c.name, c.labels...); got < c.atLeast {
			t.Errorf("%s: %s%v grew by %v, want at least %v\n%s", c.stage, c.name, c.labels, got, c.atLeast, grepLines(after[c.stage], c.name))
		}
	}
	if got := grew(framework.StageRegistry, "apiserver_storage_objects", objects); got != 3 {
		t.Errorf("apiserver_storage_objects{%s} grew by %v, want 3", objects, got)
	}
	for _, stage := range backends {
		if sample(t, after[stage], "go_goroutines") == 0 {
			t.Errorf("%s's /metrics lacks the Go runtime's", stage)
		}
	}
}

// quotaConfigMaps puts a quota on config maps in ns, so that admission
// looks at their creates there, and waits until the quota is counted.
func quotaConfigMaps(t *testing.T, admin kubernetes.Interface, ns string) {
	t.Helper()
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"configmaps": resource.MustParse("100")}}}
	if _, err := admin.CoreV1().ResourceQuotas(ns).Create(ctx(t), quota, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.Until(t, 10*time.Second, "the quota's status", func() bool {
		q, err := admin.CoreV1().ResourceQuotas(ns).Get(context.Background(), "q", metav1.GetOptions{})
		return err == nil && len(q.Status.Hard) > 0
	})
}

// grepLines are body's lines that mention name, for a failure message.
func grepLines(body, name string) string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		if strings.Contains(line, name) && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
