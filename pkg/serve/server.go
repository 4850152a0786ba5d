package serve

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// ShutdownTimeout bounds how long Close waits for requests in flight.
const ShutdownTimeout = 10 * time.Second

// Server is an HTTP(S) server started by Start.
type Server struct {
	url  string
	http *http.Server
	// conns are its connections, counted against its Limits.
	conns *conns
	done  chan struct{}
	once  sync.Once
}

// Start listens on e and serves h until Close, within e.Limits. It
// returns once the listener is open, so a caller can hand out URL at
// once. log receives the server's own errors (nil is slog.Default()); ctx
// bounds the listen only.
func Start(ctx context.Context, e Endpoint, h http.Handler, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.Default()
	}
	limits, err := e.Limits.resolve(openFileLimit())
	if err != nil {
		return nil, err
	}
	capped := newConns(limits, log)
	ln, scheme, err := e.listen(ctx, capped.listener)
	if err != nil {
		return nil, err
	}
	s := &Server{
		url: scheme + "://" + ln.Addr().String(),
		// No ReadTimeout or WriteTimeout: they would cut watches and
		// other long-running requests; the aggregator's request deadline
		// bounds the others.
		http: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: limits.ReadHeaderTimeout,
			IdleTimeout:       limits.IdleTimeout,
			MaxHeaderBytes:    maxHeaderBytes,
			HTTP2:             limits.http2(),
			ConnState:         capped.connState,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
		conns: capped,
		done:  make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("server stopped", "url", s.url, "err", err)
		}
	}()
	return s, nil
}

// URL is the base URL served: scheme://host:port.
func (s *Server) URL() string { return s.url }

// OnShutdown runs f when Close begins, before waiting for requests in
// flight: long-running handlers (watches, streams) use it to end on their
// own, since Shutdown does not cancel them.
func (s *Server) OnShutdown(f func()) { s.http.RegisterOnShutdown(f) }

// Close stops accepting, lets requests in flight finish for up to
// ShutdownTimeout, then closes what is left. It is safe to call twice.
func (s *Server) Close() {
	s.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
		defer cancel()
		if err := s.http.Shutdown(ctx); err != nil {
			_ = s.http.Close()
		}
		<-s.done
	})
}
