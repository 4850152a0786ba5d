package upstream

import (
	"errors"
	"testing"
)

func TestPickRoundRobin(t *testing.T) {
	b1, b2, b3 := newBackend(t), newBackend(t), newBackend(t)
	u := newUpstream(t, Config{URLs: []string{b1.srv.URL, b2.srv.URL, b3.srv.URL}})
	if err := u.Resolve(ctx(t)); err != nil {
		t.Fatal(err)
	}
	assertRoundRobin(t, picks(t, u, 9), b1.addr(), b2.addr(), b3.addr())
}

func TestPickWithNoHealthyEndpoint(t *testing.T) {
	b := newBackend(t)
	u := newUpstream(t, Config{URLs: []string{b.srv.URL}})
	if _, err := u.Pick(); !errors.Is(err, ErrNoEndpoint) {
		t.Fatalf("Pick before any check = %v, want ErrNoEndpoint", err)
	}
	b.down.Store(true)
	if err := u.Resolve(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Pick(); !errors.Is(err, ErrNoEndpoint) {
		t.Fatalf("Pick with the only endpoint down = %v, want ErrNoEndpoint", err)
	}
	eps := u.Endpoints()
	if len(eps) != 1 || eps[0].Healthy || eps[0].Err == nil {
		t.Fatalf("Endpoints = %+v, want one unhealthy endpoint with its error", eps)
	}
}

func TestHealthCheckTakesOutAndBringsBack(t *testing.T) {
	b1, b2, b3 := newBackend(t), newBackend(t), newBackend(t)
	u := newUpstream(t, Config{URLs: []string{b1.srv.URL, b2.srv.URL, b3.srv.URL}})
	if err := u.Resolve(ctx(t)); err != nil {
		t.Fatal(err)
	}
	b2.down.Store(true)
	u.Check(ctx(t))
	assertRoundRobin(t, picks(t, u, 6), b1.addr(), b3.addr())

	b2.down.Store(false)
	u.Check(ctx(t))
	assertRoundRobin(t, picks(t, u, 6), b1.addr(), b2.addr(), b3.addr())
}

func TestReportTakesOutUntilNextCheck(t *testing.T) {
	b1, b2 := newBackend(t), newBackend(t)
	u := newUpstream(t, Config{URLs: []string{b1.srv.URL, b2.srv.URL}})
	if err := u.Resolve(ctx(t)); err != nil {
		t.Fatal(err)
	}
	ep, err := u.Pick()
	if err != nil {
		t.Fatal(err)
	}
	other := b1.addr()
	if ep.Host == other {
		other = b2.addr()
	}
	u.Report(ep, nil) // success changes nothing
	assertRoundRobin(t, picks(t, u, 4), b1.addr(), b2.addr())

	u.Report(ep, errors.New("connection refused"))
	assertRoundRobin(t, picks(t, u, 4), other)

	u.Check(ctx(t))
	assertRoundRobin(t, picks(t, u, 4), b1.addr(), b2.addr())
}
