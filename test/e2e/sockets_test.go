package e2e

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// listeningTCPPorts are the TCP ports (IPv4 and IPv6) process pid
// listens on, read from Linux's /proc: its socket descriptors' inodes,
// matched with the listening sockets of /proc/<pid>/net/tcp and tcp6.
func listeningTCPPorts(t *testing.T, pid int) []int {
	t.Helper()
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	fds, err := os.ReadDir(filepath.Join(proc, "fd"))
	if err != nil {
		t.Fatal(err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(proc, "fd", fd.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	var ports []int
	for _, table := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join(proc, "net", table))
		if err != nil {
			t.Fatal(err)
		}
		s := bufio.NewScanner(f)
		s.Scan() // the header
		for s.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			fields := strings.Fields(s.Text())
			const listen = "0A"
			if len(fields) < 10 || fields[3] != listen || !inodes[fields[9]] {
				continue
			}
			_, hexPort, _ := strings.Cut(fields[1], ":")
			if port, err := strconv.ParseInt(hexPort, 16, 32); err == nil {
				ports = append(ports, int(port))
			}
		}
		f.Close()
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(ports)
	return ports
}
