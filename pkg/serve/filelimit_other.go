//go:build !unix

package serve

// openFileLimit is a guess where there is no RLIMIT_NOFILE to read.
func openFileLimit() int { return fallbackOpenFiles }
