package endpointlease

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/labels"
)

// A lease written for an endpoint reads back as it, is selected by the
// Selector, has a valid object name, and lapses after its duration.
func TestRoundTrip(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, addr := range []string{"10.1.2.3", "fd00::1", "::ffff:10.0.0.9"} {
		e := Endpoint{Address: netip.MustParseAddr(addr), Port: 6443}
		l := New(e, "replica-a", 3*time.Second, now)
		if errs := validation.NameIsDNSSubdomain(l.Name, false); len(errs) > 0 {
			t.Errorf("%s: name %q: %v", addr, l.Name, errs)
		}
		got, err := Parse(l)
		if err != nil || got != (Endpoint{Address: e.Address.Unmap(), Port: 6443}) {
			t.Errorf("%s: Parse = %v, %v", addr, got, err)
		}
		if !Selector().Matches(labels.Set(l.Labels)) {
			t.Errorf("%s: labels %v not selected", addr, l.Labels)
		}
		if !Live(l, now.Add(2999*time.Millisecond)) || Live(l, now.Add(3*time.Second)) {
			t.Errorf("%s: live until %v, want now+3s", addr, Expiry(l))
		}
	}
}

// Renewing moves the renew time on and keeps the acquire time.
func TestRenew(t *testing.T) {
	now := time.Now()
	e := Endpoint{Address: netip.MustParseAddr("10.0.0.2"), Port: 443}
	l := New(e, "a", 10*time.Second, now)
	Renew(l, e, "a", 10*time.Second, now.Add(time.Minute))
	if !l.Spec.AcquireTime.Time.Equal(now) {
		t.Errorf("acquire time moved to %v", l.Spec.AcquireTime)
	}
	if !Live(l, now.Add(65*time.Second)) {
		t.Error("renewed lease lapsed early")
	}
}

// A lease without an address or port is malformed, and one never renewed
// is not live.
func TestMalformed(t *testing.T) {
	l := New(Endpoint{Address: netip.MustParseAddr("10.0.0.2"), Port: 443}, "a", time.Second, time.Now())
	l.Annotations[PortAnnotation] = "0"
	if _, err := Parse(l); !errors.Is(err, ErrMalformed) {
		t.Errorf("port 0: %v", err)
	}
	delete(l.Annotations, AddressAnnotation)
	if _, err := Parse(l); !errors.Is(err, ErrMalformed) {
		t.Errorf("no address: %v", err)
	}
	l.Spec.RenewTime = nil
	if Live(l, time.Time{}) {
		t.Error("a lease never renewed is live")
	}
}
