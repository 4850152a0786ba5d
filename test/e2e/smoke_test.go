package e2e

import (
	"strings"
	"testing"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestFreshServer checks what a newcomer sees first: the system namespaces.
func TestFreshServer(t *testing.T) {
	r := framework.StartRegistry(t)
	out := r.MustKubectl(t, "", "get", "namespaces", "-o", "name")
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		if !strings.Contains(out, "namespace/"+ns+"\n") {
			t.Errorf("namespace %s missing from:\n%s", ns, out)
		}
	}
}
