package filters

import (
	"net/http"
	"sync"
)

// initSignal is a watch's response writer that tells, once, when the
// upstream has answered: the first header, byte or flush written means the
// watch is set up, which ends its initialization for API Priority and
// Fairness.
type initSignal struct {
	http.ResponseWriter
	done chan struct{}
	once sync.Once
}

func (s *initSignal) signal() { s.once.Do(func() { close(s.done) }) }

func (s *initSignal) WriteHeader(code int) {
	s.ResponseWriter.WriteHeader(code)
	s.signal()
}

func (s *initSignal) Write(b []byte) (int, error) {
	n, err := s.ResponseWriter.Write(b)
	s.signal()
	return n, err
}

// Flush passes a flush on, so that events reach the client as they come.
func (s *initSignal) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	s.signal()
}

// Unwrap lets http.ResponseController reach the connection beneath.
func (s *initSignal) Unwrap() http.ResponseWriter { return s.ResponseWriter }
