package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/polltest"
)

// streamWriter creates ConfigMaps w-00000, w-00001, … one after another.
// A create that fails is retried under the same name until it succeeds or
// answers AlreadyExists (an earlier attempt whose answer was lost did
// land), so every name is written once and only once.
type streamWriter struct {
	mu      sync.Mutex
	written int
	retries int
	lastErr error
	err     error
	done    chan struct{}
}

// writeTimeout bounds the retries of one object: longer than a killed
// replica takes to be noticed and avoided.
const writeTimeout = time.Minute

func startStreamWriter(stop context.Context, cms typedcorev1.ConfigMapInterface) *streamWriter {
	w := &streamWriter{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for i := 0; stop.Err() == nil; i++ {
			if err := w.write(cms, i); err != nil {
				w.mu.Lock()
				w.err = err
				w.mu.Unlock()
				return
			}
		}
	}()
	return w
}

// write stores object i. The stop context is not used for the requests:
// an abandoned create would leave its outcome unknown.
func (w *streamWriter) write(cms typedcorev1.ConfigMapInterface, i int) error {
	name := fmt.Sprintf("w-%05d", i)
	deadline := time.Now().Add(writeTimeout)
	retry := time.NewTicker(100 * time.Millisecond)
	defer retry.Stop()
	for {
		c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, err := cms.Create(c, configMap(name, strconv.Itoa(i)), metav1.CreateOptions{})
		cancel()
		w.mu.Lock()
		if err == nil || apierrors.IsAlreadyExists(err) {
			w.written++
			w.mu.Unlock()
			return nil
		}
		w.retries++
		w.lastErr = err
		w.mu.Unlock()
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not written in %v: %w", name, writeTimeout, err)
		}
		<-retry.C
	}
}

func (w *streamWriter) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.written
}

func (w *streamWriter) waitFor(t *testing.T, n int) {
	t.Helper()
	polltest.Until(t, 2*time.Minute, fmt.Sprintf("%d ConfigMaps written", n), func() bool {
		return w.failed() || w.count() >= n
	})
}

// failed tells whether the writer gave up (result says why).
func (w *streamWriter) failed() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// streamResult is what the writer did, once it has stopped.
type streamResult struct {
	written, retries int
	lastErr, err     error
}

func (w *streamWriter) result() streamResult {
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return streamResult{w.written, w.retries, w.lastErr, w.err}
}

// forbiddenOutcome counts what happened to creates without permission.
type forbiddenOutcome struct {
	refused    int      // 403 Forbidden
	unanswered int      // 503, 429, a timeout or a broken connection: never reached etcd
	allowed    []string // any other answer: the request got past authorization
}

// startForbiddenWriter keeps creating ConfigMaps as a user without
// permission until stop ends, then sends what became of them. Odd
// attempts go to a namespace of their own: a decision never cached, so
// the aggregator asks authz every time. A wrongly allowed create there
// answers NotFound (no such namespace), not success.
func startForbiddenWriter(stop context.Context, client kubernetes.Interface) <-chan forbiddenOutcome {
	out := make(chan forbiddenOutcome, 1)
	go func() {
		var o forbiddenOutcome
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for i := 0; stop.Err() == nil; i++ {
			ns := composeNS
			if i%2 == 1 {
				ns = fmt.Sprintf("nowhere-%d", i)
			}
			c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			_, err := client.CoreV1().ConfigMaps(ns).Create(c, configMap(fmt.Sprintf("denied-%d", i), "x"), metav1.CreateOptions{})
			cancel()
			switch {
			case apierrors.IsForbidden(err):
				o.refused++
			case err != nil && (apierrors.IsServiceUnavailable(err) || apierrors.IsTooManyRequests(err) ||
				apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) || !isStatus(err)):
				o.unanswered++
			default:
				o.allowed = append(o.allowed, fmt.Sprintf("%s/denied-%d: %v", ns, i, err))
			}
			select {
			case <-stop.Done():
			case <-tick.C:
			}
		}
		out <- o
	}()
	return out
}

// isStatus tells an answer of the server from a failure to get one.
func isStatus(err error) bool {
	_, ok := err.(apierrors.APIStatus)
	return ok || errors.As(err, new(apierrors.APIStatus))
}

// assertWrittenOnce checks that composeNS holds exactly w-00000 … w-<n-1>,
// each with its own value, and nothing a forbidden user created.
func assertWrittenOnce(t *testing.T, admin kubernetes.Interface, n int) {
	t.Helper()
	list, err := admin.CoreV1().ConfigMaps(composeNS).List(ctx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, cm := range list.Items {
		switch {
		case strings.HasPrefix(cm.Name, "w-"):
			seen[cm.Name] = cm.Data["v"]
		case strings.HasPrefix(cm.Name, "denied-"):
			t.Errorf("%s was created by a user without permission", cm.Name)
		}
	}
	for i := range n {
		name := fmt.Sprintf("w-%05d", i)
		if v, ok := seen[name]; !ok {
			t.Errorf("%s was acknowledged but is not stored", name)
		} else if v != strconv.Itoa(i) {
			t.Errorf("%s holds %q, want %d", name, v, i)
		}
		delete(seen, name)
	}
	for name := range seen {
		t.Errorf("%s is stored but was never acknowledged", name)
	}
}

// token is a new token of service account name in composeNS.
func (s *composeStack) token(t *testing.T, name string) string {
	t.Helper()
	tr, err := s.admin.CoreV1().ServiceAccounts(composeNS).CreateToken(ctx(t), name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for %s: %v", name, err)
	}
	return tr.Status.Token
}

// getAs lists composeNS's ConfigMaps with token, without client-go's
// retries, and returns the status and Retry-After header.
func (s *composeStack) getAs(t *testing.T, token string) (int, string) {
	t.Helper()
	tlsConfig, err := rest.TLSConfigFor(s.rest)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConfig}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx(t), http.MethodGet, s.rest.Host+"/api/v1/namespaces/"+composeNS+"/configmaps", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET configmaps: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// networkReceived is how many bytes each container has received, from
// `docker stats` (which rounds to three digits: enough to tell a replica
// that serves requests from one that only answers health checks).
func networkReceived(t *testing.T, ids []string) map[string]int64 {
	t.Helper()
	out := docker(t, append([]string{"stats", "--no-stream", "--format", "{{.ID}} {{.NetIO}}"}, ids...)...)
	got := map[string]int64{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line) // <id> <rx> / <tx>
		if len(f) < 2 {
			continue
		}
		for _, id := range ids {
			if strings.HasPrefix(id, f[0]) {
				got[id] = parseBytes(t, f[1])
			}
		}
	}
	return got
}

// parseBytes reads docker's human sizes: 512B, 12.3kB, 4.5MB, 1.2GB.
func parseBytes(t *testing.T, s string) int64 {
	t.Helper()
	units := []struct {
		suffix string
		scale  float64
	}{{"GB", 1e9}, {"MB", 1e6}, {"kB", 1e3}, {"B", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			if err != nil {
				t.Fatalf("docker stats size %q: %v", s, err)
			}
			return int64(v * u.scale)
		}
	}
	t.Fatalf("docker stats size %q: unknown unit", s)
	return 0
}
