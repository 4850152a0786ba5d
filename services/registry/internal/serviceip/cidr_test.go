package serviceip

import (
	"net/netip"
	"testing"
)

func TestParseServiceCIDRs(t *testing.T) {
	for in, want := range map[string]string{
		"10.0.0.0/24":             "[10.0.0.0/24]",
		"10.0.0.5/24":             "[10.0.0.0/24]",
		"10.96.0.0/12,fd00::/108": "[10.96.0.0/12 fd00::/108]",
		"fd00::/108,10.0.0.0/24":  "[fd00::/108 10.0.0.0/24]",
	} {
		got, err := ParseServiceCIDRs(in)
		if err != nil || fmtPrefixes(got) != want {
			t.Errorf("%q: %v %v, want %s", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"":                                  "--service-cluster-ip-range must contain at least one valid cidr",
		"10.0.0.0/24,10.1.0.0/24":           "--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family",
		"10.0.0.0/24,fd00::/108,fd01::/108": "--service-cluster-ip-range must not contain more than two entries",
		"nope":                              "service-cluster-ip-range[0] is not a valid cidr",
		"fd00::/48":                         "--service-cluster-ip-range[0]: shortest allowed prefix length for service CIDR is 64, got 48",
		"10.0.0.0/30":                       "--service-cluster-ip-range[0]: the service cluster IP range must be at least 8 IP addresses",
	} {
		if _, err := ParseServiceCIDRs(in); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
	if pr, err := ParseNodePortRange(DefaultServiceNodePortRange); err != nil || pr.Base != 30000 || pr.Size != 2768 {
		t.Errorf("node port range: %v %v", pr, err)
	}
	if _, err := ParseNodePortRange("3-1"); err == nil {
		t.Error("a backwards node port range was accepted")
	}
}

func fmtPrefixes(ps []netip.Prefix) string {
	s := "["
	for i, p := range ps {
		if i > 0 {
			s += " "
		}
		s += p.String()
	}
	return s + "]"
}

// Ranges are divided as kube's allocator divides them.
func TestRangeLikeKube(t *testing.T) {
	for _, c := range []struct {
		cidr, first, last string
		size, offset      uint64
	}{
		{"10.0.0.0/24", "10.0.0.1", "10.0.0.254", 254, 16},
		{"10.0.0.0/28", "10.0.0.1", "10.0.0.14", 14, 0},
		{"10.96.0.0/12", "10.96.0.1", "10.111.255.254", 1<<20 - 2, 256},
		{"10.0.0.0/20", "10.0.0.1", "10.0.15.254", 4094, 256},
		{"10.0.0.0/23", "10.0.0.1", "10.0.1.254", 510, 32},
		{"fd00::/108", "fd00::1", "fd00::f:ffff", 1<<20 - 1, 256},
		{"fd00::/64", "fd00::1", "fd00::ffff:ffff:ffff:ffff", 1<<64 - 1, 256},
	} {
		r, err := newRange(netip.MustParsePrefix(c.cidr))
		if err != nil {
			t.Fatal(err)
		}
		if r.first.String() != c.first || r.last.String() != c.last || r.size != c.size || r.offset != c.offset {
			t.Errorf("%s: %v-%v size %d offset %d, want %s-%s %d %d", c.cidr, r.first, r.last, r.size, r.offset, c.first, c.last, c.size, c.offset)
		}
		if got := r.at(r.size - 1); got.String() != c.last {
			t.Errorf("%s: last index is %v", c.cidr, got)
		}
		if r.contains(r.prefix.Addr()) || !r.contains(r.first) || !r.contains(r.last) || r.contains(r.last.Next()) {
			t.Errorf("%s: contains is wrong at the edges", c.cidr)
		}
	}
	if ip := KubernetesServiceIP(netip.MustParsePrefix("10.96.0.0/12")); ip.String() != "10.96.0.1" {
		t.Errorf("kubernetes Service IP %v", ip)
	}
}

// scan tries the upper band before the lower one, each index once.
func TestScanPrefersTheUpperBand(t *testing.T) {
	var order []uint64
	done, err := scan(20, 5, func(i uint64) (bool, error) {
		order = append(order, i)
		return false, nil
	})
	if done || err != nil || len(order) != 20 {
		t.Fatalf("scan: %v %v %v", done, err, order)
	}
	seen := map[uint64]bool{}
	for k, i := range order {
		if (k < 15) != (i >= 5) || seen[i] {
			t.Fatalf("scan order %v", order)
		}
		seen[i] = true
	}
}

func TestParseIP(t *testing.T) {
	for in, want := range map[string]string{"10.0.0.1": "10.0.0.1", "010.000.000.001": "10.0.0.1", "fd00::0:5": "fd00::5", "::ffff:10.0.0.1": "10.0.0.1"} {
		if got, ok := parseIP(in); !ok || got.String() != want {
			t.Errorf("%q: %v %v, want %s", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "None", "10.0.0", "10.0.0.256", "1a.0.0.1"} {
		if _, ok := parseIP(in); ok {
			t.Errorf("%q parsed", in)
		}
	}
}
