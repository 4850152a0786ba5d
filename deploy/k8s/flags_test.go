package k8s

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// flagName is the name of a --flag or --flag=value argument.
var flagName = regexp.MustCompile(`^--([a-z0-9-]+)`)

// checkFlags runs each kubesplit container's binary from $KUBESPLIT_BIN
// (make test builds it) with --help and checks that it has every flag the
// manifests pass, so that a renamed flag cannot leave the manifests
// behind. Without $KUBESPLIT_BIN it checks nothing.
func (m *manifests) checkFlags(t *testing.T) {
	t.Helper()
	dir := os.Getenv("KUBESPLIT_BIN")
	if dir == "" {
		t.Log("KUBESPLIT_BIN is not set: the manifests' flags are not checked against the binaries")
		return
	}
	for _, w := range m.workloads {
		for _, c := range w.template.Spec.Containers {
			if len(c.Command) == 0 || c.Command[0] == "etcd" {
				continue
			}
			help, _ := exec.Command(filepath.Join(dir, c.Command[0]), "--help").CombinedOutput()
			if !strings.Contains(string(help), "--bind-address") {
				t.Errorf("%s --help: %s", c.Command[0], help)
				continue
			}
			for _, arg := range append(c.Command[1:], c.Args...) {
				if f := flagName.FindStringSubmatch(arg); f != nil && !strings.Contains(string(help), "--"+f[1]+" ") {
					t.Errorf("%s/%s passes %s, a flag %s does not have", w.kind, w.name, arg, c.Command[0])
				}
			}
		}
	}
}
