package connect

import (
	"bufio"
	"net"
	"net/http"
)

// hijackable lets kube's upgrade-aware proxy, which asks the writer itself
// for http.Hijacker and http.Flusher, reach the connection through the
// registry's writers that only Unwrap (the metrics filter's).
type hijackable struct{ http.ResponseWriter }

// Hijack implements http.Hijacker through http.ResponseController.
func (w hijackable) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Flush implements http.Flusher through http.ResponseController.
func (w hijackable) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap is for http.ResponseController.
func (w hijackable) Unwrap() http.ResponseWriter { return w.ResponseWriter }
