package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

const (
	// madeUpRequests is how many anonymous requests to made-up paths with
	// made-up methods the flood sends, from floodSenders goroutines, for
	// at most madeUpFloodFor.
	madeUpRequests = 20000
	floodSenders   = 4
	madeUpFloodFor = 90 * time.Second
	// maxRequestSeries bounds apiserver_request_total's series after the
	// flood: every verb, scope and code the flood can produce, and what
	// the stack itself asked, but nothing per request.
	maxRequestSeries = 300
	// madeUpRSSGrowth bounds how much the aggregator's resident memory
	// may grow during the flood; a series per request grew it by several
	// times this.
	madeUpRSSGrowth = 64 << 20
	// stillAnswersWithin is how fast an authenticated client and /readyz
	// must answer during the flood.
	stillAnswersWithin = 5 * time.Second
)

// madeUpMethods are what the flood sends: kube's methods, in any case,
// and methods nobody serves, some of them new each time.
var madeUpMethods = []func(*rand.Rand) string{
	func(*rand.Rand) string { return http.MethodGet },
	func(*rand.Rand) string { return http.MethodPost },
	func(*rand.Rand) string { return "delete" },
	func(*rand.Rand) string { return "PROPFIND" },
	func(r *rand.Rand) string { return fmt.Sprintf("M%08X", r.Uint32()) },
}

// madeUpPath is a path under /api, /apis or elsewhere that names groups,
// versions, resources and subresources nobody serves.
func madeUpPath(r *rand.Rand) string {
	w := func() string { return fmt.Sprintf("x%x", r.Uint64()) }
	switch r.IntN(5) {
	case 0:
		return fmt.Sprintf("/apis/%s.example/%s/namespaces/%s/%s/%s/%s", w(), w(), w(), w(), w(), w())
	case 1:
		return fmt.Sprintf("/api/%s/%s", w(), w())
	case 2:
		return fmt.Sprintf("/api/v1/namespaces/default/pods/p/%s", w())
	case 3:
		return fmt.Sprintf("/apis/%s/%s", w(), w())
	}
	return "/" + w()
}

// requestSeries counts the series of apiserver_request_total in a scrape.
func requestSeries(body string) int {
	n := 0
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, "apiserver_request_total{") {
			n++
		}
	}
	return n
}

// A flood of anonymous requests to made-up paths with made-up methods
// (labels chosen by whoever sends the request, before anyone is
// authenticated) adds a bounded number of series to the aggregator's
// request metrics, not one per request; its memory stays bounded; and an
// authenticated client and /readyz keep answering meanwhile.
func TestMadeUpRequestsKeepMetricsBounded(t *testing.T) {
	s := framework.StartStack(t, framework.StackOptions{Users: metricsUsers})
	admin := s.Client(t, s.AdminToken)
	served := []string{`resource="namespaces"`, `verb="GET"`, `code="200"`}
	// The aggregator reads what is served from the upstreams' discovery
	// when first asked about a resource; from then on a served resource
	// keeps its labels.
	polltest.Until(t, 30*time.Second, "an admin's get counted under its resource", func() bool {
		if _, err := admin.CoreV1().Namespaces().Get(ctx(t), "default", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
		_, body := scrape(t, s, monitorToken)
		return sample(t, body, "apiserver_request_total", served...) > 0
	})
	_, before := scrape(t, s, monitorToken)
	rssBefore := sample(t, before, "process_resident_memory_bytes")

	floodCtx, cancel := context.WithTimeout(context.Background(), madeUpFloodFor)
	defer cancel()
	var sent, failed atomic.Int64
	var wg sync.WaitGroup
	for i := range floodSenders {
		client := s.HTTPClient(t)
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
			for floodCtx.Err() == nil && sent.Add(1) <= madeUpRequests {
				method := madeUpMethods[r.IntN(len(madeUpMethods))](r)
				req, err := http.NewRequestWithContext(floodCtx, method, s.Aggregator.URL+madeUpPath(r), nil)
				if err != nil {
					t.Error(err)
					return
				}
				resp, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				resp.Body.Close()
			}
		})
	}
	flooded := make(chan struct{})
	go func() { wg.Wait(); close(flooded) }()

	// Meanwhile the admin (client-go) and /readyz answer, each within
	// stillAnswersWithin.
	probe := s.HTTPClient(t)
	probe.Timeout = stillAnswersWithin
	var worst time.Duration
	checks := 0
	for done := false; !done; {
		select {
		case <-flooded:
			done = true
		default:
		}
		start := time.Now()
		getCtx, cancelGet := context.WithTimeout(ctx(t), stillAnswersWithin)
		_, err := admin.CoreV1().Namespaces().Get(getCtx, "default", metav1.GetOptions{})
		cancelGet()
		if err != nil {
			t.Fatalf("the admin's get during the flood: %v", err)
		}
		resp, err := probe.Get(s.Aggregator.URL + "/readyz")
		if err != nil {
			t.Fatalf("/readyz during the flood: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("/readyz during the flood: %d", resp.StatusCode)
		}
		worst = max(worst, time.Since(start))
		checks++
	}
	n := min(sent.Load(), madeUpRequests)
	t.Logf("%d made-up requests (%d failed to send) in the flood; the admin and /readyz answered %d times, the slowest pair in %v",
		n, failed.Load(), checks, worst)
	if n < madeUpRequests/2 {
		t.Fatalf("only %d of %d requests sent within %v", n, madeUpRequests, madeUpFloodFor)
	}

	_, after := scrape(t, s, monitorToken)
	series := requestSeries(after)
	rssAfter := sample(t, after, "process_resident_memory_bytes")
	t.Logf("apiserver_request_total: %d series before the flood, %d after; aggregator resident memory %.0f MB before, %.0f MB after",
		requestSeries(before), series, rssBefore/1e6, rssAfter/1e6)
	if series > maxRequestSeries {
		t.Errorf("%d made-up requests left %d apiserver_request_total series, want at most %d:\n%s",
			n, series, maxRequestSeries, firstLines(grepLines(after, "apiserver_request_total{"), 10))
	}
	if grew := rssAfter - rssBefore; grew > madeUpRSSGrowth {
		t.Errorf("the aggregator's resident memory grew by %.0f MB during the flood, want at most %d MB", grew/1e6, madeUpRSSGrowth>>20)
	}
	// The resources served kept their labels throughout.
	if grew := sample(t, after, "apiserver_request_total", served...) - sample(t, before, "apiserver_request_total", served...); grew != float64(checks) {
		t.Errorf("the admin's %d gets of a namespace during the flood counted %v times under resource=\"namespaces\":\n%s",
			checks, grew, grepLines(after, `resource="namespaces"`))
	}
}

// firstLines is at most n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
