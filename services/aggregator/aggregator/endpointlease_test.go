package aggregator

import (
	"log/slog"
	"testing"
)

// The advertised endpoint is kube's default: the advertise address, else
// the bound address; a loopback one advertises nothing, and neither does
// the "none" reconciler.
func TestAdvertised(t *testing.T) {
	cases := []struct {
		name, advertise, reconciler, url string
		want                             string // empty: nothing advertised
	}{
		{"explicit", "10.1.0.5", "", "https://127.0.0.1:6443", "10.1.0.5:6443"},
		{"bound address", "", "", "https://10.2.0.7:7443", "10.2.0.7:7443"},
		{"loopback bound", "", "", "https://127.0.0.1:6443", ""},
		{"none", "10.1.0.5", EndpointReconcilerNone, "https://127.0.0.1:6443", ""},
	}
	for _, c := range cases {
		cfg := Config{AdvertiseAddress: c.advertise, EndpointReconcilerType: c.reconciler, Log: slog.New(slog.DiscardHandler)}.withDefaults()
		e, ok := advertised(cfg, c.url)
		got := ""
		if ok {
			got = e.String()
		}
		if got != c.want {
			t.Errorf("%s: advertised %q, want %q", c.name, got, c.want)
		}
	}
}
