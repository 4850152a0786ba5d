package serviceip

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"strings"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	api "k8s.io/kubernetes/pkg/apis/core"
)

// Defaults of the registry's flags, kube-apiserver's.
const (
	DefaultServiceClusterIPRange = "10.0.0.0/24"
	DefaultServiceNodePortRange  = "30000-32767"
)

// ParseServiceCIDRs reads --service-cluster-ip-range: one CIDR, or two of
// different families separated by a comma for dual-stack, the first being
// the cluster's primary family. Each is masked to its network ("10.0.0.5/24"
// is 10.0.0.0/24), as kube-apiserver reads it.
func ParseServiceCIDRs(s string) ([]netip.Prefix, error) {
	parts := strings.Split(s, ",")
	if s == "" {
		return nil, errors.New("--service-cluster-ip-range must contain at least one valid cidr")
	}
	if len(parts) > 2 {
		return nil, errors.New("--service-cluster-ip-range must not contain more than two entries")
	}
	var out []netip.Prefix
	for i, p := range parts {
		prefix, err := netip.ParsePrefix(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("service-cluster-ip-range[%d] is not a valid cidr", i)
		}
		prefix = prefix.Masked()
		if _, err := newRange(prefix); err != nil {
			return nil, fmt.Errorf("--service-cluster-ip-range[%d]: %w", i, err)
		}
		out = append(out, prefix)
	}
	if len(out) == 2 && out[0].Addr().Is4() == out[1].Addr().Is4() {
		return nil, errors.New("--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family")
	}
	return out, nil
}

// ParseNodePortRange reads --service-node-port-range ("30000-32767", or
// "30000+2767" as kube also takes).
func ParseNodePortRange(s string) (utilnet.PortRange, error) {
	pr, err := utilnet.ParsePortRange(s)
	if err != nil {
		return utilnet.PortRange{}, fmt.Errorf("--service-node-port-range: %w", err)
	}
	return *pr, nil
}

// KubernetesServiceIP is the address kube reserves in the primary range for
// the kubernetes Service (default/kubernetes): the first after the network
// address.
func KubernetesServiceIP(primary netip.Prefix) netip.Addr {
	return primary.Masked().Addr().Next()
}

// ipRange is one CIDR cluster IPs are taken from, divided as kube's
// IPAddress allocator divides it: neither the network address nor, for
// IPv4, the broadcast address is used, and the first offset addresses are
// left to Services that ask for an address of their own: a dynamic
// allocation takes from above them first (KEP-3070).
type ipRange struct {
	prefix      netip.Prefix
	family      api.IPFamily
	first, last netip.Addr
	size        uint64 // addresses first..last, at most MaxUint64
	offset      uint64
}

func newRange(prefix netip.Prefix) (*ipRange, error) {
	prefix = prefix.Masked()
	hostBits := prefix.Addr().BitLen() - prefix.Bits()
	r := &ipRange{prefix: prefix, family: api.IPv4Protocol, first: prefix.Addr().Next(), last: broadcast(prefix)}
	if prefix.Addr().Is6() {
		r.family = api.IPv6Protocol
		if prefix.Bits() < 64 {
			return nil, fmt.Errorf("shortest allowed prefix length for service CIDR is 64, got %d", prefix.Bits())
		}
	} else {
		r.last = r.last.Prev()
	}
	// kube-apiserver's own lower bound on the range (ServiceIPRange).
	if hostBits < 3 {
		return nil, errors.New("the service cluster IP range must be at least 8 IP addresses")
	}
	if hostBits >= 64 {
		r.size = math.MaxUint64
	} else {
		r.size = uint64(1)<<hostBits - 1
		if r.family == api.IPv4Protocol {
			r.size--
		}
	}
	r.offset = rangeOffset(hostBits)
	return r, nil
}

// rangeOffset is kube's size of the static band: min(max(16, size/16),
// 256), none for ranges of 16 addresses or fewer.
func rangeOffset(hostBits int) uint64 {
	var size uint64 = math.MaxInt64
	if hostBits < 63 {
		size = uint64(1) << hostBits
	}
	return staticBand(size, 16, 256)
}

// staticBand is kube's size of the lower band of a range that allocation
// prefers to leave to users who ask for a value: size/step, at least 16
// and at most high, and none in a range of 16 or fewer.
func staticBand(size, step, high uint64) uint64 {
	const low = 16
	switch {
	case size <= low:
		return 0
	case size/step < low:
		return low
	case size/step > high:
		return high
	}
	return size / step
}

// contains reports whether ip is one of the range's usable addresses.
func (r *ipRange) contains(ip netip.Addr) bool {
	return ip.BitLen() == r.first.BitLen() && r.first.Compare(ip) <= 0 && ip.Compare(r.last) <= 0
}

// at is the i-th usable address.
func (r *ipRange) at(i uint64) netip.Addr {
	b := r.first.As16()
	hi, lo := binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])
	sum, carry := bits.Add64(lo, i, 0)
	binary.BigEndian.PutUint64(b[:8], hi+carry)
	binary.BigEndian.PutUint64(b[8:], sum)
	a := netip.AddrFrom16(b)
	if r.first.Is4() {
		a = a.Unmap()
	}
	return a
}

// broadcast is the last address of prefix.
func broadcast(prefix netip.Prefix) netip.Addr {
	b := prefix.Masked().Addr().AsSlice()
	for i := prefix.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// scan offers try the indexes of [0, n) kube's way: from a random start in
// the upper band [offset, n), wrapping around it, then from a random start
// in the lower band [0, offset). It stops at the first try that is done or
// fails, and reports whether one was done.
func scan(n, offset uint64, try func(i uint64) (bool, error)) (bool, error) {
	if offset > n {
		offset = n
	}
	for _, band := range [][2]uint64{{offset, n}, {0, offset}} {
		lo, size := band[0], band[1]-band[0]
		if size == 0 {
			continue
		}
		start := rand.Uint64N(size)
		for k := uint64(0); k < size; k++ {
			done, err := try(lo + (start+k)%size)
			if done || err != nil {
				return done, err
			}
		}
	}
	return false, nil
}

// parseIP reads a cluster IP as kube does (leading zeros of an IPv4
// address allowed, as its validation does for Services).
func parseIP(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	if !strings.Contains(s, ".") || strings.Contains(s, ":") {
		return netip.Addr{}, false
	}
	var b [4]byte
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return netip.Addr{}, false
	}
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || v > 255 || len(p) > 3 {
			return netip.Addr{}, false
		}
		b[i] = byte(v)
	}
	return netip.AddrFrom4(b), true
}

// familyOf is the family of a cluster IP.
func familyOf(ip netip.Addr) api.IPFamily {
	if ip.Is4() {
		return api.IPv4Protocol
	}
	return api.IPv6Protocol
}
