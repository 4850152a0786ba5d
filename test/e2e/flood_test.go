package e2e

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

const (
	// floodOpenFiles is the flooded service's open-file limit in the flood
	// test: small, so that a few thousand connections would exhaust it.
	floodOpenFiles = 1024
	// idleConns is how many idle keep-alive connections the flood opens,
	// about three times floodOpenFiles.
	idleConns = 3000
	// oversizedBodies is how many bodies over 3 MiB the flood sends.
	oversizedBodies = 48
	// floodFor bounds each flood.
	floodFor = 60 * time.Second
	// answerWithin is how fast the admin and /readyz must answer during
	// the flood.
	answerWithin = 5 * time.Second
	// rssGrowthLimit bounds how much the aggregator's resident memory may
	// grow during the flood.
	rssGrowthLimit = 150 << 20
)

// A flood of idle keep-alive connections, three times a service's
// open-file limit, and at the aggregator of bodies over 3 MiB, does not
// lock anyone out: meanwhile and afterwards the admin (client-go, through
// the aggregator and so the registry) and /readyz answer within seconds,
// the flooded service holds no more connections than its cap, its memory
// stays bounded, a watch opened before the flood still delivers events,
// and no oversized body reaches etcd. The aggregator is the endpoint
// clients reach; the registry stands for the backends, which a local user
// can reach directly and which all serve through pkg/serve alike.
func TestFloodKeepsTheAdminServed(t *testing.T) {
	t.Run("aggregator", func(t *testing.T) {
		s := framework.StartStack(t, framework.StackOptions{OpenFiles: map[string]int{framework.StageAggregator: floodOpenFiles}})
		flood(t, s, floodTarget{addr: strings.TrimPrefix(s.Aggregator.URL, "https://"), caFile: s.Aggregator.CAFile,
			pid: s.Aggregator.PID(), bodies: true})
	})
	t.Run("registry", func(t *testing.T) {
		s := framework.StartStack(t, framework.StackOptions{OpenFiles: map[string]int{framework.StageRegistry: floodOpenFiles}})
		flood(t, s, floodTarget{addr: s.Addr[framework.StageRegistry], caFile: s.BackendCAFile(), pid: s.PID(framework.StageRegistry)})
	})
}

// floodTarget is the service a flood is aimed at.
type floodTarget struct {
	addr, caFile string
	pid          int
	// bodies adds the flood of oversized bodies, sent through the
	// aggregator.
	bodies bool
}

func flood(t *testing.T, s *framework.Stack, target floodTarget) {
	pid := target.pid
	baseline := residentBytes(t, pid)
	admin := s.Client(t, s.AdminToken)
	// A watch open through the flood: its connection is busy, so it is
	// never closed to make room, and nothing times it out.
	w, err := admin.CoreV1().ConfigMaps("default").Watch(ctx(t), metav1.ListOptions{FieldSelector: notRootCA})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	floodCtx, cancel := context.WithTimeout(context.Background(), floodFor)
	defer cancel()
	idle := &idleFlood{addr: target.addr, roots: caPool(t, target.caFile)}
	defer idle.closeAll()
	bodies := &bodyFlood{url: s.Aggregator.URL, client: s.HTTPClient(t), token: s.AdminToken}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); idle.run(floodCtx) }()
		if target.bodies {
			wg.Add(1)
			go func() { defer wg.Done(); bodies.run(floodCtx) }()
		}
		wg.Wait()
	}()

	var worst time.Duration
	peak := baseline
	check := func() {
		t.Helper()
		worst = max(worst, answers(t, s))
		peak = max(peak, residentBytes(t, pid))
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for flooding := true; flooding && !t.Failed(); {
		check()
		select {
		case <-done:
			flooding = false
		case <-tick.C:
		}
	}
	<-done
	// The server is now full of the flood's idle connections: a new
	// client still gets in.
	check()

	open := idle.stillOpen()
	t.Logf("idle flood: %d connections opened, %d failed, %d still open at the end; bodies: %d answered 413, %v; "+
		"slowest admin or /readyz answer %v; RSS of the flooded service %d MiB before, %d MiB at most",
		idle.opened.Load(), idle.failed.Load(), open, bodies.refused.Load(), bodies.errs(), worst, baseline>>20, peak>>20)
	if n := idle.opened.Load(); n < idleConns {
		t.Errorf("the flood opened %d idle connections of %d: new connections were not accepted", n, idleConns)
	}
	if open > floodOpenFiles/2 {
		t.Errorf("%d idle connections still open, more than the cap of half the open-file limit (%d)", open, floodOpenFiles/2)
	}
	if n := bodies.refused.Load(); target.bodies && n != oversizedBodies {
		t.Errorf("%d of %d oversized bodies answered 413 RequestEntityTooLarge: %v", n, oversizedBodies, bodies.errs())
	}
	if peak-baseline > rssGrowthLimit {
		t.Errorf("the flooded service's RSS grew by %d MiB during the flood, more than %d MiB", (peak-baseline)>>20, rssGrowthLimit>>20)
	}
	createConfigMap(t, admin.CoreV1().ConfigMaps("default"), "after-flood", nil)
	select {
	case ev, ok := <-w.ResultChan():
		if cm, isCM := ev.Object.(*corev1.ConfigMap); !ok || ev.Type != watch.Added || !isCM || cm.Name != "after-flood" {
			t.Errorf("the watch opened before the flood got %v %T (open %v), want ADDED after-flood", ev.Type, ev.Object, ok)
		}
	case <-time.After(answerWithin):
		t.Errorf("the watch opened before the flood got nothing within %v of a create", answerWithin)
	}
	cms, err := admin.CoreV1().ConfigMaps("default").List(ctx(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range cms.Items {
		if strings.HasPrefix(cm.Name, "flood-") {
			t.Errorf("an oversized body was stored: ConfigMap %s", cm.Name)
		}
	}
}

// answers checks that the admin reads a namespace and /readyz answers 200,
// each within answerWithin and on a connection of its own, as a new
// kubectl and a kubelet's probe would, and returns the slower time.
func answers(t *testing.T, s *framework.Stack) time.Duration {
	t.Helper()
	cfg := s.RESTConfig(t, s.AdminToken)
	cfg.Timeout = answerWithin
	// A dialer of its own keeps client-go from reusing a cached
	// transport, and its connection.
	cfg.Dial = (&net.Dialer{}).DialContext
	admin, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := admin.CoreV1().Namespaces().Get(ctx(t), "default", metav1.GetOptions{}); err != nil {
		t.Errorf("the admin during the flood, after %v: %v", time.Since(start), err)
	}
	took := time.Since(start)

	probe := &http.Client{Timeout: answerWithin, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: caPool(t, s.Aggregator.CAFile)}, DisableKeepAlives: true,
	}}
	start = time.Now()
	resp, err := probe.Get(s.Aggregator.URL + "/readyz")
	if err != nil {
		t.Errorf("/readyz during the flood, after %v: %v", time.Since(start), err)
		return max(took, time.Since(start))
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz during the flood = %d", resp.StatusCode)
	}
	return max(took, time.Since(start))
}

// idleFlood opens idleConns TLS connections from 127.0.0.2-9 (other
// clients than the admin's 127.0.0.1), sends one GET /version on each and
// leaves it open and idle, as the clients that once filled the
// aggregator's file limit did.
type idleFlood struct {
	addr           string
	roots          *x509.CertPool
	opened, failed atomic.Int64
	mu             sync.Mutex
	conns          []*tls.Conn
}

func (f *idleFlood) run(ctx context.Context) {
	eachOf(ctx, 16, idleConns, func(i int) {
		c, err := f.open(ctx, fmt.Sprintf("127.0.0.%d", 2+i%8))
		if err != nil {
			f.failed.Add(1)
			return
		}
		f.opened.Add(1)
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.mu.Unlock()
	})
}

// eachOf calls do with 1 to n from workers goroutines at once, until all
// are done or ctx ends, and returns when every call has.
func eachOf(ctx context.Context, workers, n int, do func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(n) && ctx.Err() == nil; i = next.Add(1) {
				do(int(i))
			}
		})
	}
	wg.Wait()
}

// open connects from the address from, gets /version over HTTP/1.1 and
// returns the connection, kept alive.
func (f *idleFlood) open(ctx context.Context, from string) (*tls.Conn, error) {
	d := &tls.Dialer{
		NetDialer: &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 2 * time.Second},
		Config:    &tls.Config{RootCAs: f.roots, NextProtos: []string{"http/1.1"}},
	}
	nc, err := d.DialContext(ctx, "tcp", f.addr)
	if err != nil {
		return nil, err
	}
	c := nc.(*tls.Conn)
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.WriteString(c, "GET /version HTTP/1.1\r\nHost: kubesplit\r\n\r\n"); err != nil {
		_ = c.Close()
		return nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	_ = c.SetDeadline(time.Time{})
	return c, nil
}

// stillOpen counts the flood's connections the server has not closed.
func (f *idleFlood) stillOpen() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	open := 0
	buf := make([]byte, 64)
	for _, c := range f.conns {
		raw := c.NetConn()
		_ = raw.SetReadDeadline(time.Now().Add(time.Millisecond))
		// The server sends nothing on an idle connection it keeps; a
		// closed one reads EOF (or its TLS close alert).
		if n, err := raw.Read(buf); n == 0 && errors.Is(err, os.ErrDeadlineExceeded) {
			open++
		}
	}
	return open
}

func (f *idleFlood) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.conns {
		_ = c.NetConn().Close()
	}
}

// bodyFlood posts oversizedBodies ConfigMaps of 8 MiB from 4 clients at
// once, half with a Content-Length and half chunked, as the admin and
// some anonymously.
type bodyFlood struct {
	url     string
	client  *http.Client
	token   string
	refused atomic.Int64
	mu      sync.Mutex
	others  map[string]int
}

func (f *bodyFlood) run(ctx context.Context) {
	payload := bytes.Repeat([]byte("x"), 8<<20)
	eachOf(ctx, 4, oversizedBodies, func(i int) { f.post(ctx, i, payload) })
}

func (f *bodyFlood) post(ctx context.Context, i int, payload []byte) {
	head := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"flood-` + strconv.Itoa(i) + `"},"data":{"x":"`
	const tail = `"}}`
	body := io.MultiReader(strings.NewReader(head), bytes.NewReader(payload), strings.NewReader(tail))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.url+"/api/v1/namespaces/default/configmaps", body)
	if err != nil {
		f.note(err.Error())
		return
	}
	req.ContentLength = -1 // sent chunked: its size is learnt by reading it
	if i%2 == 0 {
		req.ContentLength = int64(len(head) + len(payload) + len(tail))
	}
	// Anonymous bodies go with their length, refused before anything; an
	// anonymous chunked one would be refused 403 before its body is read.
	if i%4 != 0 {
		req.Header.Set("Authorization", "Bearer "+f.token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		f.note(err.Error())
		return
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode == http.StatusRequestEntityTooLarge {
		f.refused.Add(1)
		return
	}
	f.note(resp.Status)
}

// note counts an outcome other than 413.
func (f *bodyFlood) note(what string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.others == nil {
		f.others = map[string]int{}
	}
	f.others[what]++
}

func (f *bodyFlood) errs() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.others
}

// residentBytes is the resident memory of process pid (VmRSS).
func residentBytes(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmRSS %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}

func caPool(t *testing.T, file string) *x509.CertPool {
	t.Helper()
	pem, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("no certificate in %s", file)
	}
	return pool
}
