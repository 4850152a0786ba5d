package e2e

import (
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// watchLine bounds the wait for one line of kubectl get -w.
const watchLine = 20 * time.Second

// TestKubectlGetWatch runs kubectl get -w and reads the lines it prints as
// objects are added, modified and deleted. kubectl lists first and watches
// from the list's resourceVersion, so writes made after the initial rows
// are printed cannot be missed.
func TestKubectlGetWatch(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	r.MustKubectl(t, "", "create", "configmap", "existing", "--from-literal=a=1")

	t.Run("events", func(t *testing.T) {
		w := r.StartKubectl(t, "get", "configmaps", "--watch", "--output-watch-events")
		w.WaitFor(t, watchLine, "EVENT", "NAME", "DATA", "AGE")
		w.WaitFor(t, watchLine, "ADDED", "existing", "1")
		r.MustKubectl(t, "", "create", "configmap", "fresh", "--from-literal=a=1")
		w.WaitFor(t, watchLine, "ADDED", "fresh", "1")
		r.MustKubectl(t, "", "patch", "configmap", "fresh", "-p", `{"data":{"b":"2"}}`)
		w.WaitFor(t, watchLine, "MODIFIED", "fresh", "2")
		r.MustKubectl(t, "", "delete", "configmap", "fresh")
		w.WaitFor(t, watchLine, "DELETED", "fresh", "2")
		w.Stop()
	})

	t.Run("rows", func(t *testing.T) {
		w := r.StartKubectl(t, "get", "configmaps", "-w")
		w.WaitFor(t, watchLine, "NAME", "DATA", "AGE")
		w.WaitFor(t, watchLine, "existing", "1")
		r.MustKubectl(t, "", "create", "configmap", "second", "--from-literal=a=1")
		w.WaitFor(t, watchLine, "second", "1")
		r.MustKubectl(t, "", "label", "configmap", "second", "x=y")
		w.WaitFor(t, watchLine, "second", "1")
		w.Stop()
	})

	t.Run("selector", func(t *testing.T) {
		// An object entering the selector is ADDED for this watch, one
		// leaving it is DELETED, as kube's filtered watches report.
		r.MustKubectl(t, "", "create", "configmap", "anchor", "--from-literal=a=1")
		r.MustKubectl(t, "", "label", "configmap", "anchor", "app=web")
		w := r.StartKubectl(t, "get", "configmaps", "-l", "app=web", "--watch", "--output-watch-events")
		// The initial row shows the watch is established; then make one
		// change the selector skips and one it sees.
		w.WaitFor(t, watchLine, "ADDED", "anchor")
		r.MustKubectl(t, "", "create", "configmap", "unlabeled", "--from-literal=a=1")
		r.MustKubectl(t, "", "label", "configmap", "existing", "app=web")
		w.WaitFor(t, watchLine, "ADDED", "existing")
		for _, l := range lines(w.Output()) {
			if framework.LineStartsWith(l, "ADDED", "unlabeled") {
				t.Errorf("the filtered watch printed an object outside its selector:\n%s", w.Output())
			}
		}
		r.MustKubectl(t, "", "label", "configmap", "existing", "app-")
		w.WaitFor(t, watchLine, "DELETED", "existing")
		w.Stop()
	})

	t.Run("request timeout", func(t *testing.T) {
		// kubectl ends the watch itself when the server closes it at the
		// timeout kubectl asked for.
		out := r.MustKubectl(t, "", "get", "configmaps", "-w", "--request-timeout=2s")
		if ls := lines(out); len(ls) != 5 || !framework.LineStartsWith(ls[2], "existing") {
			t.Errorf("get -w --request-timeout printed %q", out)
		}
	})
}
