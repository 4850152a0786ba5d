package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// The noisy flow of the fairness tests: this many writers at once, all
// under one service account, for noiseFor.
const (
	noisyWriters = 500
	noiseFor     = 4 * time.Second
)

// fairnessLimits leave the aggregator 8 seats for reads and 4 for writes:
// few enough that the noisy flow fills them.
var fairnessLimits = []string{"--max-requests-inflight=8", "--max-mutating-requests-inflight=4"}

// TestPriorityAndFairness floods the stack with 500 concurrent writers
// under one ServiceAccount while a user writes and an admin reads. With
// API Priority and Fairness, the flood is queued in its own priority level
// (workload-low) and its excess refused with 429, while the user's writes
// (global-default) and the admin's reads (exempt) are all served, each
// pfAnswer naming its FlowSchema and priority level by UID, and the
// rejections are counted in kube's apiserver_flowcontrol_* metrics.
func TestPriorityAndFairness(t *testing.T) {
	f := startFairnessStack(t)
	uids := f.priorityUIDs(t)
	r := f.flood(t)

	if r.noisyRefused == 0 {
		t.Errorf("the noisy flow's %d writes (%d served) got no 429", r.noisyTotal, r.noisyServed)
	}
	if r.noisyRefusedLevel != uids["workload-low"] {
		t.Errorf("a refused noisy write names priority level %q, want workload-low's %q", r.noisyRefusedLevel, uids["workload-low"])
	}
	if r.userRefused > 0 || r.userFailed > 0 {
		t.Errorf("the user's writes: %d refused with 429 and %d failed of %d; its own priority level should serve them all",
			r.userRefused, r.userFailed, len(r.userLatencies))
	}
	if r.adminFailed > 0 {
		t.Errorf("the admin's reads: %d of %d failed; exempt requests are never queued", r.adminFailed, r.adminReads)
	}
	if median := medianOf(r.userLatencies); median > time.Second {
		t.Errorf("the user's median write took %v under the flood; its own priority level should not queue it behind the flood", median)
	}
	t.Logf("noisy flow: %d writes, %d served, %d refused; user: %d writes, median %v; admin: %d reads",
		r.noisyTotal, r.noisyServed, r.noisyRefused, len(r.userLatencies), medianOf(r.userLatencies), r.adminReads)

	metrics := f.get(t, f.s.AdminToken, "/metrics").body
	want := `apiserver_flowcontrol_rejected_requests_total{flow_schema="service-accounts",priority_level="workload-low",reason="queue-full"}`
	if !strings.Contains(metrics, want) {
		t.Errorf("/metrics has no %s", want)
	}

	// The same flood through a replica with priority and fairness off:
	// the max-inflight limits count every writer together, so the user's
	// writes are refused beside the flood's. It shows what the above
	// guards against.
	t.Run("without priority and fairness", func(t *testing.T) {
		plain := *f
		plain.url = f.s.StartAggregatorReplica(t, "--enable-priority-and-fairness=false").URL
		r := plain.flood(t)
		if r.userRefused == 0 {
			t.Errorf("without priority and fairness, none of the user's %d writes was refused beside a flood of %d (%d refused)",
				len(r.userLatencies), r.noisyTotal, r.noisyRefused)
		}
	})
}

// fairnessStack is a stack with a noisy service account and a user,
// each allowed to write config maps in a namespace of its own.
type fairnessStack struct {
	s      *framework.Stack
	client *http.Client
	// url is the aggregator the requests go to.
	url                      string
	noisyToken, userToken    string
	noisyNS, userNS, adminCM string
}

func startFairnessStack(t *testing.T) *fairnessStack {
	userToken := "fair-user-" + fmt.Sprint(time.Now().UnixNano())
	s := framework.StartStack(t, framework.StackOptions{
		Args:  map[string][]string{framework.StageAggregator: fairnessLimits},
		Users: []string{userToken + `,fair-user,uid-fair-user,"writers"`},
	})
	admin := s.Client(t, s.AdminToken)
	f := &fairnessStack{s: s, client: s.HTTPClient(t), url: s.Aggregator.URL, userToken: userToken, noisyNS: "noisy", userNS: "quiet", adminCM: "read-me"}
	writeConfigMaps := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create"}}
	createNamespace(t, admin, f.noisyNS)
	createNamespace(t, admin, f.userNS)
	if _, err := admin.CoreV1().ServiceAccounts(f.noisyNS).Create(ctx(t), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "flood"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	bindServiceAccount(t, admin, f.noisyNS, "flood", writeConfigMaps)
	grantUser(t, admin, f.userNS, "fair-user", "writer", writeConfigMaps)
	f.noisyToken = serviceAccountToken(t, admin, f.noisyNS, "flood")
	if code := f.post(t, f.s.AdminToken, f.userNS, f.adminCM).code; code != http.StatusCreated {
		t.Fatalf("creating the admin's config map: %d", code)
	}
	// Authorization is asked after the flow control: wait until both may
	// write, so that no pfAnswer below is a 403.
	polltest.Until(t, 10*time.Second, "the user and the service account allowed to write", func() bool {
		return f.post(t, f.userToken, f.userNS, "").code == http.StatusCreated &&
			f.post(t, f.noisyToken, f.noisyNS, "").code == http.StatusCreated
	})
	return f
}

// priorityUIDs waits until the aggregator classifies by the cluster's
// bootstrap configuration (until its informers have synced, only kube's
// mandatory exempt and catch-all levels exist), and returns the priority
// levels' UIDs by name.
func (f *fairnessStack) priorityUIDs(t *testing.T) map[string]string {
	t.Helper()
	admin := f.s.Client(t, f.s.AdminToken)
	levels, err := admin.FlowcontrolV1().PriorityLevelConfigurations().List(ctx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	uids := map[string]string{}
	for _, pl := range levels.Items {
		uids[pl.Name] = string(pl.UID)
	}
	polltest.Until(t, 10*time.Second, "the user's write classified as global-default", func() bool {
		return f.post(t, f.userToken, f.userNS, "").level == uids["global-default"]
	})
	if got := f.get(t, f.s.AdminToken, "/api/v1/namespaces/"+f.userNS+"/configmaps/"+f.adminCM).level; got != uids[flowcontrolv1.PriorityLevelConfigurationNameExempt] {
		t.Errorf("the admin's read names priority level %q, want exempt's %q", got, uids["exempt"])
	}
	return uids
}

// floodResult is what each party saw during the flood.
type floodResult struct {
	noisyTotal, noisyServed, noisyRefused int64
	noisyRefusedLevel                     string
	userLatencies                         []time.Duration
	userRefused, userFailed               int
	adminReads, adminFailed               int
}

// flood runs the noisy writers for noiseFor while the user writes and the
// admin reads, one request at a time each.
func (f *fairnessStack) flood(t *testing.T) *floodResult {
	r := &floodResult{}
	c, cancel := context.WithTimeout(context.Background(), noiseFor)
	defer cancel()
	var wg sync.WaitGroup
	var refusedLevel atomic.Value
	for range noisyWriters {
		wg.Go(func() {
			for c.Err() == nil {
				a := f.post(t, f.noisyToken, f.noisyNS, "")
				atomic.AddInt64(&r.noisyTotal, 1)
				switch a.code {
				case http.StatusCreated:
					atomic.AddInt64(&r.noisyServed, 1)
				case http.StatusTooManyRequests:
					atomic.AddInt64(&r.noisyRefused, 1)
					refusedLevel.Store(a.level)
				}
			}
		})
	}
	wg.Go(func() {
		for c.Err() == nil {
			start := time.Now()
			switch f.post(t, f.userToken, f.userNS, "").code {
			case http.StatusCreated:
			case http.StatusTooManyRequests:
				r.userRefused++
			default:
				r.userFailed++
			}
			r.userLatencies = append(r.userLatencies, time.Since(start))
		}
	})
	wg.Go(func() {
		for c.Err() == nil {
			r.adminReads++
			if f.get(t, f.s.AdminToken, "/api/v1/namespaces/"+f.userNS+"/configmaps/"+f.adminCM).code != http.StatusOK {
				r.adminFailed++
			}
		}
	})
	wg.Wait()
	if v, ok := refusedLevel.Load().(string); ok {
		r.noisyRefusedLevel = v
	}
	return r
}

// pfAnswer is what the fairness tests read of a response.
type pfAnswer struct {
	code  int
	level string // X-Kubernetes-PF-PriorityLevel-UID
	body  string
}

// post creates a config map in ns, named name or generated; the client
// retries nothing, so every 429 is seen.
func (f *fairnessStack) post(t *testing.T, token, ns, name string) pfAnswer {
	meta := `"generateName":"cm-"`
	if name != "" {
		meta = fmt.Sprintf(`"name":%q`, name)
	}
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{%s},"data":{"k":"v"}}`, meta)
	return f.do(t, token, http.MethodPost, "/api/v1/namespaces/"+ns+"/configmaps", body)
}

func (f *fairnessStack) get(t *testing.T, token, path string) pfAnswer {
	return f.do(t, token, http.MethodGet, path, "")
}

func (f *fairnessStack) do(t *testing.T, token, method, path, body string) pfAnswer {
	req, err := http.NewRequest(method, f.url+path, bytes.NewBufferString(body))
	if err != nil {
		t.Error(err)
		return pfAnswer{}
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return pfAnswer{} // a connection error counts as neither served nor refused
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return pfAnswer{code: resp.StatusCode, level: resp.Header.Get(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID), body: string(b)}
}

func medianOf(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
