package proxy

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/services/aggregator/internal/upstream"
)

// A SPDY upgrade (kubectl exec, port-forward) to a backend that also
// speaks HTTP/2 goes out over HTTP/1.1 and the upgraded connection passes
// through both ways: net/http alone would send it over HTTP/2, where no
// upgrade exists.
func TestUpgradeOverHTTP1(t *testing.T) {
	backend := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == upstream.DefaultHealthPath {
			return
		}
		if r.ProtoMajor != 1 || r.Header.Get("Upgrade") != "SPDY/3.1" {
			http.Error(w, "no upgrade over "+r.Proto, http.StatusBadRequest)
			return
		}
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n")
		_ = rw.Flush()
		line, _ := rw.ReadString('\n')
		_, _ = rw.WriteString("echo " + line)
		_ = rw.Flush()
	}))
	backend.EnableHTTP2 = true
	backend.StartTLS()
	t.Cleanup(backend.Close)
	transport := backend.Client().Transport.(*http.Transport).Clone()
	transport.ForceAttemptHTTP2 = true
	up, err := upstream.New(upstream.Config{Name: "registry", URLs: []string{backend.URL}, Transport: transport, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := up.Resolve(ctx); err != nil {
		t.Fatal(err)
	}
	// An HTTP/2 connection to the backend exists already, as it would
	// after any ordinary request.
	if resp, err := (&http.Client{Transport: up.Transport()}).Get(backend.URL + "/warm"); err == nil {
		resp.Body.Close()
	}
	p, err := New(Config{Upstream: up, Log: quiet})
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(p)
	t.Cleanup(front.Close)

	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(front.URL, "http://"), waitLimit)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(waitLimit))
	_, _ = io.WriteString(conn, "POST /api/v1/namespaces/ns/pods/p/exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nContent-Length: 0\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("upgrade answered %s: %s", resp.Status, body)
	}
	_, _ = io.WriteString(conn, "ping\n")
	got, err := br.ReadString('\n')
	if err != nil || got != "echo ping\n" {
		t.Fatalf("through the upgraded connection: %q, %v", got, err)
	}
}
