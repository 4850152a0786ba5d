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
	binDirOnce sync.Once
	binDirPath string
	binDirErr  error

	// builds holds one *build per service name, so each binary is built at
	// most once per test process however many tests start it.
	builds sync.Map
)

// build is the outcome of building one service binary.
type build struct {
	once sync.Once
	err  error
}

// BinDir returns the directory holding the service binaries: $KUBESPLIT_BIN
// when set (make test builds them first), otherwise a temporary directory
// they are built into once per test process. The registry is in it.
func BinDir() (string, error) {
	return binDirWith("registry")
}

// binDirWith is the binary directory once every named service is in it.
func binDirWith(names ...string) (string, error) {
	for _, name := range names {
		if _, err := binary(name); err != nil {
			return "", err
		}
	}
	return binDir()
}

// binary returns the path of the named service's binary (./services/<name>),
// building it first unless $KUBESPLIT_BIN says the binaries are built.
func binary(name string) (string, error) {
	dir, err := binDir()
	if err != nil {
		return "", err
	}
	v, _ := builds.LoadOrStore(name, &build{})
	b := v.(*build)
	b.once.Do(func() {
		if os.Getenv("KUBESPLIT_BIN") == "" {
			b.err = goBuild(dir, name)
		}
	})
	return filepath.Join(dir, name), b.err
}

// binDir is $KUBESPLIT_BIN, or a temporary directory made once per test
// process for binaries built on demand.
func binDir() (string, error) {
	binDirOnce.Do(func() {
		if dir := os.Getenv("KUBESPLIT_BIN"); dir != "" {
			binDirPath = dir
			return
		}
		binDirPath, binDirErr = os.MkdirTemp("", "kubesplit-bin-")
	})
	return binDirPath, binDirErr
}

// goBuild builds ./services/<name> (or ./cmd/<name>, the fused binary,
// or ./deploy/certs, kubesplit-certs) into dir/<name>, statically so the
// binary does not depend on the test machine's C libraries.
func goBuild(dir, name string) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	pkg := "./services/" + name
	if _, err := os.Stat(filepath.Join(root, "cmd", name)); err == nil {
		pkg = "./cmd/" + name
	}
	if name == "kubesplit-certs" {
		pkg = "./deploy/certs"
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %v\n%s", name, err, out)
	}
	return nil
}

// repoRoot is the repository's top directory, found from this file.
func repoRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("cannot locate the repository")
	}
	return filepath.Abs(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}
