package serve

import (
	"container/list"
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"
)

// conns caps a server's open connections, in total and per client
// address. Without it, keep-alive connections that clients leave idle
// pile up until the process runs out of descriptors, and then nobody, the
// administrator and the health probes included, gets a connection.
//
// At a cap, room is made by closing the connection idle the longest: an
// idle connection costs its client nothing to lose (HTTP clients dial
// again), while refusing the new one would lock out whoever comes next.
// A connection counts as idle from its accept until its first request,
// and between requests (HTTP/1.1 keep-alive, or HTTP/2 with no stream
// open). Only when every connection is busy is the new one closed, at
// once, so that its client fails fast instead of waiting in the backlog.
//
// The listener admits connections beneath TLS, so a refused one costs no
// handshake; the server's ConnState hook tells which are idle.
type conns struct {
	max, perClient int
	log            *slog.Logger

	mu    sync.Mutex
	total int
	// idle holds the idle connections, oldest first.
	idle    list.List
	clients map[string]*clientConns
	// closedIdle and refused count what the caps did since lastWarned.
	closedIdle, refused int
	lastWarned          time.Time
}

// capWarnInterval is how often at most a server says its caps are
// biting: once is enough for an operator to see it, and a log line per
// connection would be a flood of its own.
const capWarnInterval = 10 * time.Second

// clientConns are one remote address's connections.
type clientConns struct {
	n int
	// idle holds this client's idle connections, oldest first.
	idle list.List
}

func newConns(l Limits, log *slog.Logger) *conns {
	return &conns{max: l.MaxConnections, perClient: l.MaxConnectionsPerClient, log: log, clients: map[string]*clientConns{}}
}

// trackedConn is an admitted connection. inIdle, inClientIdle and gone
// are guarded by conns.mu.
type trackedConn struct {
	net.Conn
	conns  *conns
	client string
	// inIdle and inClientIdle are its elements in the idle lists, nil
	// while it serves a request.
	inIdle, inClientIdle *list.Element
	// gone is set once it no longer counts: closed, or closed to make
	// room.
	gone bool
}

// Close closes the connection and frees its place.
func (c *trackedConn) Close() error {
	c.conns.mu.Lock()
	c.conns.removeLocked(c)
	c.conns.mu.Unlock()
	return c.Conn.Close()
}

// listener wraps ln so that it admits only what the caps allow.
func (cs *conns) listener(ln net.Listener) net.Listener { return &capListener{Listener: ln, conns: cs} }

type capListener struct {
	net.Listener
	conns *conns
}

// Accept returns the next connection the caps admit, closing those they
// refuse.
func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if tc := l.conns.admit(c); tc != nil {
			return tc, nil
		}
		_ = c.Close()
	}
}

// admit counts a new connection in, closing idle ones to make room, or
// returns nil when there is no room.
func (cs *conns) admit(c net.Conn) *trackedConn {
	client := remoteHost(c)
	cs.mu.Lock()
	cc := cs.clients[client]
	if cc == nil {
		cc = &clientConns{}
		cs.clients[client] = cc
	}
	var victims []*trackedConn
	refuse := func() *trackedConn {
		cs.forgetIfEmptyLocked(client, cc)
		cs.refused++
		warn := cs.warningLocked()
		cs.mu.Unlock()
		closeAll(victims)
		warn()
		return nil
	}
	if cc.n >= cs.perClient {
		v := oldest(&cc.idle)
		if v == nil {
			return refuse()
		}
		cs.removeLocked(v)
		victims = append(victims, v)
	}
	if cs.total >= cs.max {
		v := oldest(&cs.idle)
		if v == nil {
			return refuse()
		}
		cs.removeLocked(v)
		victims = append(victims, v)
	}
	tc := &trackedConn{Conn: c, conns: cs, client: client}
	cs.clients[client] = cc // again: making room may have emptied and forgotten it
	cs.total++
	cc.n++
	cs.idleLocked(tc, cc)
	cs.closedIdle += len(victims)
	warn := func() {}
	if len(victims) > 0 {
		warn = cs.warningLocked()
	}
	cs.mu.Unlock()
	closeAll(victims)
	warn()
	return tc
}

// warningLocked returns what tells the operator the caps are biting, at
// most once per capWarnInterval, to be called after unlocking.
func (cs *conns) warningLocked() func() {
	now := time.Now()
	if now.Sub(cs.lastWarned) < capWarnInterval {
		return func() {}
	}
	closedIdle, refused, since := cs.closedIdle, cs.refused, cs.lastWarned
	cs.closedIdle, cs.refused, cs.lastWarned = 0, 0, now
	return func() {
		args := []any{"maxConnections", cs.max, "maxConnectionsPerClient", cs.perClient,
			"closedIdle", closedIdle, "refused", refused}
		if !since.IsZero() {
			args = append(args, "since", since.Format(time.RFC3339))
		}
		cs.log.Warn("connection cap reached: idle connections closed to make room, new ones refused when none was idle", args...)
	}
}

// busy is how many connections are serving a request.
func (cs *conns) busy() int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.total - cs.idle.Len()
}

// connState is the server's ConnState hook: it keeps the idle lists.
func (cs *conns) connState(c net.Conn, state http.ConnState) {
	if t, ok := c.(*tls.Conn); ok {
		c = t.NetConn()
	}
	tc, ok := c.(*trackedConn)
	if !ok {
		return
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if tc.gone {
		return
	}
	switch state {
	case http.StateIdle:
		cs.busyLocked(tc)
		cs.idleLocked(tc, cs.clients[tc.client])
	case http.StateActive, http.StateHijacked:
		// A hijacked connection (an upgrade: exec, attach, port-forward)
		// counts until its handler closes it, but is never idle.
		cs.busyLocked(tc)
	}
}

// idleLocked puts tc at the young end of the idle lists.
func (cs *conns) idleLocked(tc *trackedConn, cc *clientConns) {
	tc.inIdle = cs.idle.PushBack(tc)
	tc.inClientIdle = cc.idle.PushBack(tc)
}

// busyLocked takes tc off the idle lists.
func (cs *conns) busyLocked(tc *trackedConn) {
	if tc.inIdle != nil {
		cs.idle.Remove(tc.inIdle)
		cs.clients[tc.client].idle.Remove(tc.inClientIdle)
		tc.inIdle, tc.inClientIdle = nil, nil
	}
}

// removeLocked stops counting tc; it is safe to call twice.
func (cs *conns) removeLocked(tc *trackedConn) {
	if tc.gone {
		return
	}
	cs.busyLocked(tc)
	tc.gone = true
	cs.total--
	cc := cs.clients[tc.client]
	cc.n--
	cs.forgetIfEmptyLocked(tc.client, cc)
}

func (cs *conns) forgetIfEmptyLocked(client string, cc *clientConns) {
	if cc.n == 0 {
		delete(cs.clients, client)
	}
}

// oldest is the front of an idle list, nil when it is empty.
func oldest(idle *list.List) *trackedConn {
	if e := idle.Front(); e != nil {
		return e.Value.(*trackedConn)
	}
	return nil
}

// closeAll closes connections chosen to make room. Outside the lock: the
// server goroutine serving each then fails its read and lets go of it.
func closeAll(victims []*trackedConn) {
	for _, v := range victims {
		_ = v.Conn.Close()
	}
}

// remoteHost is the client's IP address, what the per-client cap counts
// by (its port differs for each connection).
func remoteHost(c net.Conn) string {
	addr := c.RemoteAddr().String()
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}
