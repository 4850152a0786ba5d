package serve

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// The caps follow the open-file limit unless set, so a process never
// accepts connections until it has no descriptor left for anything else.
func TestLimitsDefaults(t *testing.T) {
	got, err := Limits{}.resolve(1024)
	if err != nil {
		t.Fatal(err)
	}
	want := Limits{MaxConnections: 512, MaxConnectionsPerClient: 128, IdleTimeout: 90 * time.Second,
		ReadHeaderTimeout: 10 * time.Second, HTTP2MaxStreamsPerConnection: 250}
	if got != want {
		t.Fatalf("defaults for 1024 files = %+v, want %+v", got, want)
	}
	set := Limits{MaxConnections: 10, MaxConnectionsPerClient: 10, IdleTimeout: time.Second, ReadHeaderTimeout: time.Second, HTTP2MaxStreamsPerConnection: 1}
	if got, _ := set.resolve(1024); got != set {
		t.Fatalf("set limits became %+v", got)
	}
	if _, err := (Limits{MaxConnections: -1}).resolve(1024); err == nil {
		t.Fatal("a negative cap was accepted")
	}
}

func TestLimitsFlags(t *testing.T) {
	var f Flags
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	f.AddFlags(fs, "127.0.0.1:0")
	if err := fs.Parse([]string{"--max-connections=100", "--max-connections-per-client=10", "--http2-max-streams-per-connection=1000"}); err != nil {
		t.Fatal(err)
	}
	if want := (Limits{MaxConnections: 100, MaxConnectionsPerClient: 10, HTTP2MaxStreamsPerConnection: 1000}); f.Limits != want {
		t.Fatalf("parsed %+v, want %+v", f.Limits, want)
	}
}

// HTTP/2's connection window fits every stream's, without overflowing.
func TestHTTP2Config(t *testing.T) {
	c := Limits{HTTP2MaxStreamsPerConnection: 250}.http2()
	if c.MaxConcurrentStreams != 250 || c.MaxReceiveBufferPerStream != 256<<10 || c.MaxReceiveBufferPerConnection != 250*256<<10 {
		t.Fatalf("HTTP/2 config %+v", c)
	}
	if c := (Limits{HTTP2MaxStreamsPerConnection: 1 << 20}).http2(); c.MaxReceiveBufferPerConnection <= 0 {
		t.Fatalf("connection window overflowed: %d", c.MaxReceiveBufferPerConnection)
	}
}
