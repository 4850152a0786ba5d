package framework

import "testing"

// StartReplica starts one more registry against r's etcd, as a second
// replica behind a load balancer would run. Its caches are filled from
// etcd as it stands now, so it knows nothing of history before its start.
func (r *Registry) StartReplica(t testing.TB, args ...string) *Registry {
	t.Helper()
	return launchRegistry(t, r.Etcd, append([]string{"--insecure-allow-unauthenticated"}, args...))
}
