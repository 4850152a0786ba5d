package upstream

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"
)

// fakeTickers hands Start one channel per interval, which the test ticks.
type fakeTickers map[time.Duration]chan time.Time

func (f fakeTickers) ticker(d time.Duration) (<-chan time.Time, func()) {
	return f[d], func() {}
}

// tick sends a tick and then a second one: the loop handles one tick at a
// time, so once the second is taken the first one's work is done.
func (f fakeTickers) tick(t *testing.T, d time.Duration) {
	t.Helper()
	for range 2 {
		select {
		case f[d] <- time.Now():
		case <-time.After(waitLimit):
			t.Fatalf("loop did not take a tick of %v", d)
		}
	}
}

func TestStartResolvesThenKeepsResolvingAndChecking(t *testing.T) {
	const resolveEvery, healthEvery = 3 * time.Second, 7 * time.Second
	backends := []*backend{newBackend(t), newBackend(t)}
	fnet := newFakeNet()
	for i, b := range backends {
		fnet.route([]string{"192.0.2.1:8080", "192.0.2.2:8080"}[i], b.addr())
	}
	fnet.setName("registry.test", "192.0.2.1")
	u := newUpstream(t, Config{URLs: []string{"http://registry.test:8080"}, Resolver: fnet, Transport: fnet.transport(),
		ResolveEvery: resolveEvery, HealthEvery: healthEvery})
	tickers := fakeTickers{resolveEvery: make(chan time.Time), healthEvery: make(chan time.Time)}
	u.ticker = tickers.ticker

	c, cancel := context.WithCancel(ctx(t))
	defer cancel()
	u.Start(c)
	assertRoundRobin(t, picks(t, u, 2), "192.0.2.1:8080") // usable as soon as Start returns

	fnet.setName("registry.test", "192.0.2.1", "192.0.2.2")
	tickers.tick(t, resolveEvery)
	assertRoundRobin(t, picks(t, u, 4), "192.0.2.1:8080", "192.0.2.2:8080")

	backends[0].down.Store(true)
	tickers.tick(t, healthEvery)
	assertRoundRobin(t, picks(t, u, 2), "192.0.2.2:8080")
}

// An endpoint out of rotation is checked again every RecheckEvery, so an
// upstream that becomes ready after the aggregator started serves at once;
// those in rotation wait for HealthEvery.
func TestStartRechecksEndpointsOutOfRotation(t *testing.T) {
	const healthEvery = 7 * time.Second
	up, late := newBackend(t), newBackend(t)
	late.down.Store(true)
	u := newUpstream(t, Config{URLs: []string{"http://" + up.addr(), "http://" + late.addr()}, HealthEvery: healthEvery})
	tickers := fakeTickers{healthEvery: make(chan time.Time), RecheckEvery: make(chan time.Time)}
	u.ticker = tickers.ticker
	c, cancel := context.WithCancel(ctx(t))
	defer cancel()
	u.Start(c)
	assertRoundRobin(t, picks(t, u, 2), up.addr())

	late.down.Store(false)
	up.down.Store(true) // in rotation: a recheck leaves it there
	tickers.tick(t, RecheckEvery)
	assertRoundRobin(t, picks(t, u, 4), up.addr(), late.addr())

	tickers.tick(t, healthEvery)
	assertRoundRobin(t, picks(t, u, 2), late.addr())
}

// An upstream started after the aggregator, whose listener accepts
// connections before anything serves them: Start would wait out the check
// timeout on it, StartUnchecked returns at once with the endpoint out of
// rotation, and the first recheck once it serves brings it in, answering
// the probe that was already waiting on its listener.
func TestStartUncheckedWaitsForNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	const checkTimeout = 5 * time.Second
	u := newUpstream(t, Config{URLs: []string{"http://" + ln.Addr().String()}, CheckTimeout: checkTimeout})
	tickers := fakeTickers{u.healthEvery: make(chan time.Time), RecheckEvery: make(chan time.Time)}
	u.ticker = tickers.ticker
	c, cancel := context.WithCancel(ctx(t))
	defer cancel()

	start := time.Now()
	u.StartUnchecked(c)
	if took := time.Since(start); took >= checkTimeout {
		t.Fatalf("StartUnchecked took %v", took)
	}
	if ep, err := u.Pick(); err == nil {
		t.Fatalf("an unchecked endpoint is in rotation: %v", ep)
	}

	ticked := make(chan struct{})
	go func() {
		defer close(ticked)
		tickers[RecheckEvery] <- time.Now() // the probe waits on the listener
	}()
	<-ticked
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}), ReadHeaderTimeout: time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	tickers.tick(t, RecheckEvery) // taken once the waiting probe is answered
	assertRoundRobin(t, picks(t, u, 2), ln.Addr().String())
}
