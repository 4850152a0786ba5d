package framework

import (
	"slices"
	"testing"
)

// StartBackendReplica starts one more replica of a backend stage with the
// stage's own flags and certificates on a loopback port of its own,
// args added (a flag given again wins), and returns its base URL. It runs
// until the test that started the stack ends: replicas started after the
// stack stop before it, so a registry replica still finds the admission
// replica it writes through.
func (s *Stack) StartBackendReplica(t testing.TB, name string, args ...string) string {
	t.Helper()
	flags := append(slices.Clone(s.args[name]), "--bind-address", "127.0.0.1:0")
	return launchLimited(s.t, name, s.openFiles[name], append(flags, args...)).url
}
