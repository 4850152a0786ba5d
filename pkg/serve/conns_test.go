package serve

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/pkg/polltest"
)

// closedWithin is how long a test waits for the server to close a
// connection it should close; far above the short limits the tests set.
const closedWithin = 5 * time.Second

// rawConn is an HTTP/1.1 client connection the test drives by hand, so it
// can hold it idle, silent or busy.
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

// dial connects to s from the loopback address from (127.0.0.1, or
// another 127/8 address standing for another client).
func dial(t *testing.T, s *Server, from string) *rawConn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: closedWithin}
	c, err := d.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &rawConn{Conn: c, r: bufio.NewReader(c)}
}

// get sends GET path on the connection and returns the response's status
// and body, leaving the connection open (keep-alive).
func (c *rawConn) get(t *testing.T, path string) (int, string) {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(closedWithin))
	defer func() { _ = c.SetDeadline(time.Time{}) }()
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatalf("sending GET %s: %v", path, err)
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		t.Fatalf("reading the response to GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// send writes a request without waiting for its answer.
func (c *rawConn) send(t *testing.T, path string) {
	t.Helper()
	if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: test\r\n\r\n"); err != nil {
		t.Fatalf("sending GET %s: %v", path, err)
	}
}

// closedByServer reports whether the server closes the connection within
// wait: a read ends in EOF (or a reset) rather than a timeout.
func (c *rawConn) closedByServer(wait time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	defer func() { _ = c.SetReadDeadline(time.Time{}) }()
	_, err := c.r.ReadByte()
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

func startLimited(t *testing.T, l Limits, h http.Handler) *Server {
	t.Helper()
	return startLogged(t, l, h, nil)
}

func startLogged(t *testing.T, l Limits, h http.Handler, log *slog.Logger) *Server {
	t.Helper()
	s, err := Start(context.Background(), Endpoint{BindAddress: "127.0.0.1:0", Limits: l}, h, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// A keep-alive connection left idle is closed after the idle timeout, so
// idle clients cannot pile up until the process runs out of descriptors.
func TestIdleConnectionIsClosed(t *testing.T) {
	s := startLimited(t, Limits{IdleTimeout: 100 * time.Millisecond}, http.HandlerFunc(hello))
	c := dial(t, s, "127.0.0.1")
	if code, _ := c.get(t, "/version"); code != http.StatusOK {
		t.Fatalf("GET = %d", code)
	}
	if !c.closedByServer(closedWithin) {
		t.Fatalf("an idle keep-alive connection was still open after %v (idle timeout 100ms)", closedWithin)
	}
}

// A connection that never sends a request header, in plain HTTP or before
// its TLS handshake, is closed after the read-header timeout.
func TestSilentConnectionIsClosed(t *testing.T) {
	certFile, keyFile, _ := writeCert(t)
	for _, e := range []Endpoint{
		{BindAddress: "127.0.0.1:0"},
		{BindAddress: "127.0.0.1:0", TLSCertFile: certFile, TLSPrivateKeyFile: keyFile},
	} {
		e.Limits = Limits{ReadHeaderTimeout: 100 * time.Millisecond}
		s, err := Start(context.Background(), e, http.HandlerFunc(hello), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		addr := s.URL()[strings.Index(s.URL(), "//")+2:]
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		c := &rawConn{Conn: conn, r: bufio.NewReader(conn)}
		if !c.closedByServer(closedWithin) {
			t.Errorf("%s: a connection sending nothing was still open after %v (read-header timeout 100ms)", s.URL(), closedWithin)
		}
	}
}

// One client address cannot hold more than its cap: a new connection
// beyond it takes the place of that client's oldest idle one, or is
// closed at once when all of them are busy, while another client is
// still served.
func TestPerClientCap(t *testing.T) {
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/busy" {
			<-release
		}
		hello(w, r)
	})
	s := startLimited(t, Limits{MaxConnections: 100, MaxConnectionsPerClient: 3}, h)
	defer close(release)

	idle := make([]*rawConn, 3)
	for i := range idle {
		idle[i] = dial(t, s, "127.0.0.1")
		idle[i].get(t, "/")
		waitAllIdle(t, s)
	}
	fresh := dial(t, s, "127.0.0.1")
	if code, _ := fresh.get(t, "/"); code != http.StatusOK {
		t.Fatalf("a new connection at the cap: GET = %d", code)
	}
	if !idle[0].closedByServer(closedWithin) {
		t.Fatal("the client's oldest idle connection was not closed to make room for its new one")
	}
	if idle[1].closedByServer(50*time.Millisecond) || idle[2].closedByServer(50*time.Millisecond) {
		t.Fatal("a younger idle connection was closed")
	}

	// Now every connection of the client is busy: there is no room.
	for _, c := range []*rawConn{idle[1], idle[2], fresh} {
		c.send(t, "/busy")
	}
	waitBusy(t, s, 3)
	refused := dial(t, s, "127.0.0.1")
	if !refused.closedByServer(closedWithin) {
		t.Fatal("a connection beyond the cap of a client whose connections are all busy was kept open")
	}
	if code, _ := dial(t, s, "127.0.0.2").get(t, "/"); code != http.StatusOK {
		t.Fatalf("another client: GET = %d", code)
	}
}

// When the server holds as many connections as it may, and they are idle,
// new clients (a health probe, an ordinary request) are still served: the
// connections idle the longest make room, and the operator is told, once.
func TestFullServerServesNewClients(t *testing.T) {
	const limit = 20
	var logs syncBuffer
	s := startLogged(t, Limits{MaxConnections: limit, MaxConnectionsPerClient: limit}, http.HandlerFunc(hello),
		slog.New(slog.NewTextHandler(&logs, nil)))
	flood := make([]*rawConn, limit)
	for i := range flood {
		// From other addresses than the probe's, as a flood of many
		// clients would be.
		flood[i] = dial(t, s, "127.0.0."+string(rune('2'+i%8)))
		flood[i].get(t, "/version")
		waitAllIdle(t, s) // so that they turn idle in the order they were opened
	}
	client := &http.Client{Timeout: closedWithin, Transport: &http.Transport{}}
	for _, path := range []string{"/healthz", "/api/v1/namespaces"} {
		resp, err := client.Get(s.URL() + path)
		if err != nil {
			t.Fatalf("GET %s on a server full of idle connections: %v", path, err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %d", path, resp.StatusCode)
		}
	}
	if !flood[0].closedByServer(closedWithin) {
		t.Fatal("the oldest idle connection was not closed to make room: the server holds more than its cap")
	}
	if n := strings.Count(logs.String(), "connection cap reached"); n != 1 {
		t.Fatalf("the cap was reported %d times, want once:\n%s", n, logs.String())
	}
}

// syncBuffer is a log destination the server writes while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// When every connection is busy, a new one is closed at once rather than
// left waiting for a place.
func TestFullOfBusyConnectionsRefusesAtOnce(t *testing.T) {
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release })
	s := startLimited(t, Limits{MaxConnections: 2}, h)
	defer close(release)
	for _, from := range []string{"127.0.0.2", "127.0.0.3"} {
		dial(t, s, from).send(t, "/busy")
	}
	waitBusy(t, s, 2)
	if !dial(t, s, "127.0.0.4").closedByServer(closedWithin) {
		t.Fatal("a connection beyond the cap was kept open while every connection was busy")
	}
}

// Long-running requests (watches) outlive every timeout the server sets:
// there is no write timeout.
func TestLongRunningRequestOutlivesTimeouts(t *testing.T) {
	const chunks = 5
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tick := time.NewTicker(60 * time.Millisecond)
		defer tick.Stop()
		for i := range chunks {
			<-tick.C
			_, _ = io.WriteString(w, string(rune('0'+i)))
			w.(http.Flusher).Flush()
		}
	})
	s := startLimited(t, Limits{IdleTimeout: 50 * time.Millisecond, ReadHeaderTimeout: 50 * time.Millisecond}, h)
	if got := get(t, http.DefaultClient, s.URL()+"/watch"); got != "01234" {
		t.Fatalf("a stream longer than the idle and read-header timeouts got %q", got)
	}
}

// HTTP/2 is served with kube's settings, and its idle connections are
// closed too.
func TestHTTP2IdleConnectionIsClosed(t *testing.T) {
	certFile, keyFile, pool := writeCert(t)
	s, err := Start(context.Background(), Endpoint{BindAddress: "127.0.0.1:0", TLSCertFile: certFile, TLSPrivateKeyFile: keyFile,
		Limits: Limits{IdleTimeout: 100 * time.Millisecond}}, http.HandlerFunc(hello), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	closed := make(chan struct{})
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &watchedConn{Conn: c, closed: closed}, nil
	}
	defer tr.CloseIdleConnections()
	if got := get(t, &http.Client{Transport: tr}, s.URL()); got != "HTTP/2.0" {
		t.Fatalf("served %q, want HTTP/2.0", got)
	}
	select {
	case <-closed:
	case <-time.After(closedWithin):
		t.Fatalf("an idle HTTP/2 connection was still open after %v (idle timeout 100ms)", closedWithin)
	}
}

// watchedConn tells when the server ended the connection: the client's
// transport closes it on the server's GOAWAY, or fails to read once the
// server closed its end.
type watchedConn struct {
	net.Conn
	once   sync.Once
	closed chan struct{}
}

func (c *watchedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err != nil {
		c.once.Do(func() { close(c.closed) })
	}
	return n, err
}

func (c *watchedConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// waitBusy waits until n connections of s are serving a request.
// waitAllIdle waits until the server has marked every connection idle: a
// client reads its response before the server's own goroutine says the
// connection is idle again, so without it the idle order is a race.
func waitAllIdle(t *testing.T, s *Server) {
	t.Helper()
	polltest.Until(t, closedWithin, "every connection idle", func() bool { return s.conns.busy() == 0 })
}

func waitBusy(t *testing.T, s *Server, n int) {
	t.Helper()
	polltest.Until(t, closedWithin, "busy connections", func() bool { return s.conns.busy() >= n })
}
