package framework

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"testing"
)

// Ports handed out in advance are taken below the kernel's ephemeral
// range: a port picked there by listening on :0 and closing it could be
// the next one the kernel gives any outgoing connection (a flood test
// opens thousands) or another listener on :0 before the service binds
// it, which failed runs with "address already in use". Below the range
// only another process choosing by hand competes, and this one never
// hands out a port twice.
var (
	portsMu   sync.Mutex
	handedOut = map[int]bool{}
)

// lowestFreePort is where the search starts: above the well-known and
// commonly configured ports.
const lowestFreePort = 10000

// freePortRun returns the first of n consecutive loopback ports that were
// all free a moment ago: run.sh takes its aggregator's port and the ones
// after it, as make run takes 6443 to 6447.
func freePortRun(t testing.TB, n int) int {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	top := ephemeralLow() - n
	for range 100 {
		base := lowestFreePort + rand.IntN(max(1, top-lowestFreePort))
		if portsFree(base, n) {
			for p := base; p < base+n; p++ {
				handedOut[p] = true
			}
			return base
		}
	}
	t.Fatalf("no %d consecutive free loopback ports found below %d", n, top+n)
	return 0
}

// ephemeralLow is the first port of the kernel's ephemeral range.
func ephemeralLow() int {
	low := 32768 // Linux's default
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		var high int
		if _, err := fmt.Sscan(string(b), &low, &high); err != nil {
			low = 32768
		}
	}
	return max(low, lowestFreePort+1000)
}

// portsFree reports whether base to base+n-1 are bindable now and were
// not handed out before.
func portsFree(base, n int) bool {
	var open []net.Listener
	defer func() {
		for _, ln := range open {
			_ = ln.Close()
		}
	}()
	for port := base; port < base+n; port++ {
		if handedOut[port] {
			return false
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			return false
		}
		open = append(open, ln)
	}
	return true
}
