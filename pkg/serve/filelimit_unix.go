//go:build unix

package serve

import "syscall"

// openFileLimit raises the soft limit on open files to the hard limit, as
// Go's runtime already does at start on Linux (done again here so the
// connection caps never rest on that), and returns it: every connection
// is a descriptor, and the caps are derived from this.
func openFileLimit() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return fallbackOpenFiles
	}
	if lim.Cur < lim.Max {
		raised := lim
		raised.Cur = lim.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			lim = raised
		}
	}
	if lim.Cur > uint64(maxOpenFiles) {
		return maxOpenFiles
	}
	return int(lim.Cur)
}
