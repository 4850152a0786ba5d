package serve

import (
	"fmt"
	"math"
	"net/http"
	"time"

	"github.com/spf13/pflag"
)

// The defaults of Limits, kube-apiserver's where it has one
// (k8s.io/apiserver pkg/server/secure_serving.go).
const (
	// DefaultIdleTimeout closes a keep-alive connection that has carried
	// no request for this long: kube's 90 s, which matches Go's client
	// transports' own idle timeout, so a client rarely finds its idle
	// connection closed under it.
	DefaultIdleTimeout = 90 * time.Second
	// DefaultReadHeaderTimeout closes a connection that does not finish
	// its TLS handshake or a request's header in this long: a client that
	// connects and sends nothing holds a descriptor no longer.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultHTTP2MaxStreamsPerConnection is kube's explicit default, and
	// Go's own.
	DefaultHTTP2MaxStreamsPerConnection = 250
	// http2StreamBuffer is kube's HTTP/2 per-stream receive window and
	// largest frame: it holds 99 % of API objects, where Go's 1 MiB
	// default times 250 streams would let one connection park 250 MiB of
	// request bodies.
	http2StreamBuffer = 256 << 10
	// maxHeaderBytes is kube's, and Go's default.
	maxHeaderBytes = 1 << 20
	// clientShare is the fraction of MaxConnections one client address
	// may hold by default, so that one host (or one NAT) cannot take
	// every connection.
	clientShare = 4
)

// Limits bound what clients can hold of a server: connections, how long
// they may sit idle or silent, and HTTP/2 streams. The zero value is the
// defaults.
type Limits struct {
	// MaxConnections caps the connections open at once. When it is
	// reached, the connection idle the longest (or open the longest
	// without a request) is closed to make room for a new one, so a
	// flood of idle connections cannot lock clients out; when none is
	// idle, the new connection is closed at once rather than left
	// waiting. 0 is half the process's open-file limit: the other half
	// is for upstream connections, etcd and files.
	MaxConnections int
	// MaxConnectionsPerClient caps the connections of one remote IP
	// address, the same way but making room among that address's own
	// idle connections only. 0 is a quarter of MaxConnections.
	MaxConnectionsPerClient int
	// IdleTimeout closes a keep-alive connection (HTTP/1.1, or HTTP/2
	// without a stream) that carried nothing for this long; 0 is
	// DefaultIdleTimeout. There is no write or whole-request timeout:
	// watches and other long-running requests last as long as they need.
	IdleTimeout time.Duration
	// ReadHeaderTimeout bounds the TLS handshake and the reading of a
	// request's header; 0 is DefaultReadHeaderTimeout.
	ReadHeaderTimeout time.Duration
	// HTTP2MaxStreamsPerConnection is the number of concurrent streams
	// an HTTP/2 client may open on one connection
	// (--http2-max-streams-per-connection); 0 is
	// DefaultHTTP2MaxStreamsPerConnection.
	HTTP2MaxStreamsPerConnection int
}

// addFlags registers the limits an operator may want to change, with
// kube-apiserver's name where it has the flag.
func (l *Limits) addFlags(fs *pflag.FlagSet) {
	fs.IntVar(&l.MaxConnections, "max-connections", l.MaxConnections,
		"connections served at once; beyond it the longest-idle connection is closed to make room, or the new one if none is idle (0: half the open-file limit)")
	fs.IntVar(&l.MaxConnectionsPerClient, "max-connections-per-client", l.MaxConnectionsPerClient,
		"connections one client IP address may hold, making room among its own idle ones (0: a quarter of --max-connections)")
	fs.IntVar(&l.HTTP2MaxStreamsPerConnection, "http2-max-streams-per-connection", l.HTTP2MaxStreamsPerConnection,
		fmt.Sprintf("the limit the server gives to clients for the number of streams in one HTTP/2 connection (0: %d)", DefaultHTTP2MaxStreamsPerConnection))
}

// resolve fills in the defaults, given the process's open-file limit.
func (l Limits) resolve(openFiles int) (Limits, error) {
	if l.MaxConnections < 0 || l.MaxConnectionsPerClient < 0 || l.IdleTimeout < 0 || l.ReadHeaderTimeout < 0 || l.HTTP2MaxStreamsPerConnection < 0 {
		return l, fmt.Errorf("serve: negative limit in %+v", l)
	}
	if l.MaxConnections == 0 {
		l.MaxConnections = max(openFiles/2, 1)
	}
	if l.MaxConnectionsPerClient == 0 {
		l.MaxConnectionsPerClient = max(l.MaxConnections/clientShare, 1)
	}
	if l.IdleTimeout == 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.ReadHeaderTimeout == 0 {
		l.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if l.HTTP2MaxStreamsPerConnection == 0 {
		l.HTTP2MaxStreamsPerConnection = DefaultHTTP2MaxStreamsPerConnection
	}
	return l, nil
}

// http2 is the server's HTTP/2 configuration, kube's: small per-stream
// buffers, and a connection window that lets every allowed stream fill
// its own.
func (l Limits) http2() *http.HTTP2Config {
	return &http.HTTP2Config{
		MaxConcurrentStreams:          l.HTTP2MaxStreamsPerConnection,
		MaxReadFrameSize:              http2StreamBuffer,
		MaxReceiveBufferPerStream:     http2StreamBuffer,
		MaxReceiveBufferPerConnection: min(http2StreamBuffer*l.HTTP2MaxStreamsPerConnection, math.MaxInt32),
	}
}
