package e2e

import (
	"net/http"
	"regexp"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

const (
	monitorToken  = "monitor-token-0123456789"
	nobodysToken  = "nobody-metrics-token-0123456789"
	createCounter = `apiserver_request_total\{code="201",component="apiserver",group="",resource="configmaps",scope="namespace",subresource="",verb="POST",version="v1"\} (\d+)`
)

// scrape reads the aggregator's /metrics as the token's user.
func scrape(t *testing.T, s *framework.Stack, token string) (int, string) {
	t.Helper()
	code, _, body := stackDo(t, s, http.MethodGet, "/metrics", token, "")
	return code, body
}

// counter is the value of the metric line pattern matches, 0 when absent.
func counter(t *testing.T, body, pattern string) int {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(body)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The aggregator's /metrics is authorized like kube's (system:monitoring
// may read it, others not), is in Prometheus's format with kube's names,
// and its request counter moves with the requests it serves.
func TestAggregatorMetrics(t *testing.T) {
	s := framework.StartStack(t, framework.StackOptions{Users: []string{
		monitorToken + `,monitor,uid-monitor,"system:monitoring"`,
		nobodysToken + `,nobody,uid-nobody,"others"`,
	}})
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
	const failed = `authentication_attempts\{result="failure"\} (\d+)`
	if code, _ := scrape(t, s, "not-a-token-0123456789"); code != http.StatusUnauthorized {
		t.Fatalf("a bad token reading /metrics: %d, want 401", code)
	}
	admin := s.Client(t, s.AdminToken)
	for _, name := range []string{"m1", "m2", "m3"} {
		if _, err := admin.CoreV1().ConfigMaps("default").Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	_, after := scrape(t, s, monitorToken)
	if got := counter(t, after, createCounter) - counter(t, before, createCounter); got != 3 {
		t.Errorf("apiserver_request_total for config map creates grew by %d, want 3", got)
	}
	if got := counter(t, after, failed) - counter(t, before, failed); got != 1 {
		t.Errorf("authentication_attempts{result=\"failure\"} grew by %d, want 1", got)
	}
	if counter(t, after, `authentication_attempts\{result="success"\} (\d+)`) == 0 {
		t.Error("no successful authentication counted")
	}
	if !regexp.MustCompile(`apiserver_request_duration_seconds_count\{component="apiserver",group="",resource="configmaps",scope="namespace",subresource="",verb="POST",version="v1"\} \d+`).MatchString(after) {
		t.Error("/metrics lacks the creates' duration histogram")
	}
}
