// Package framework starts kubesplit's real binaries for end-to-end tests
// and hands out the clients that drive them: the kubectl on the PATH and
// client-go.
package framework

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// BinDir returns the directory holding the service binaries: $KUBESPLIT_BIN
// when set (make test builds them first), otherwise a temporary directory
// they are built into once per test process.
func BinDir() (string, error) {
	buildOnce.Do(func() {
		if dir := os.Getenv("KUBESPLIT_BIN"); dir != "" {
			binDir = dir
			return
		}
		binDir, buildErr = os.MkdirTemp("", "kubesplit-bin-")
		if buildErr != nil {
			return
		}
		root, err := repoRoot()
		if err != nil {
			buildErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(binDir, "registry"), "./services/registry")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build registry: %v\n%s", err, out)
		}
	})
	return binDir, buildErr
}

// repoRoot is the repository's top directory, found from this file.
func repoRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("cannot locate the repository")
	}
	return filepath.Abs(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}
