package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// TestMakeRun runs hack/run.sh, what `make run` runs, and checks what a
// developer's machine is exposed to: kubectl works with the kubeconfig it
// writes; its directory and every secret in it (tokens, keys, kubeconfigs)
// are its user's alone; every backend serves HTTPS only, with the stack's
// CA; and the registry listens on its one port, etcd on none.
func TestMakeRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	// A directory others could write to before the first start is made
	// private, whatever the umask.
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	r := framework.StartMakeRun(t, dir)

	if out, err := r.Kubectl(t, "create", "configmap", "make-run", "--from-literal=k=v"); err != nil {
		t.Fatalf("kubectl create: %v\n%s", err, out)
	}
	if out, err := r.Kubectl(t, "get", "configmap", "make-run", "-o", "jsonpath={.data.k}"); err != nil || out != "v" {
		t.Fatalf("kubectl get: %v\n%s", err, out)
	}

	checkPrivate(t, dir)

	pool := x509.NewCertPool()
	ca, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil || !pool.AppendCertsFromPEM(ca) {
		t.Fatalf("ca.crt: %v", err)
	}
	secure := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	plain := &http.Client{Timeout: 10 * time.Second}
	for _, name := range []string{"registry", "authz", "authn", "admission"} {
		addr := readTrimmed(t, filepath.Join(dir, name+".addr"))
		u, err := url.Parse(addr)
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := secure.Get("https://" + u.Host + "/healthz"); err != nil {
			t.Errorf("%s over HTTPS trusting the stack's CA: %v", name, err)
		} else {
			resp.Body.Close()
		}
		if resp, err := plain.Get("http://" + u.Host + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode < 400 {
				t.Errorf("%s answered plain HTTP with %d", name, resp.StatusCode)
			}
		}
	}

	if _, err := os.Stat("/proc/self/net/tcp"); err != nil {
		t.Skip("no /proc to list the registry's sockets")
	}
	pid, err := strconv.Atoi(readTrimmed(t, filepath.Join(dir, "registry.pid")))
	if err != nil {
		t.Fatal(err)
	}
	registryURL, _ := url.Parse(readTrimmed(t, filepath.Join(dir, "registry.addr")))
	if ports := listeningTCPPorts(t, pid); len(ports) != 1 || strconv.Itoa(ports[0]) != registryURL.Port() {
		t.Errorf("the registry listens on TCP ports %v, want only its own %s (etcd on a unix socket)", ports, registryURL.Port())
	}
}

// checkPrivate fails t unless dir and every directory under it are
// 0700, and every file is its user's alone but certificates and public
// keys, which anyone may read and nobody else write.
func checkPrivate(t *testing.T, dir string) {
	t.Helper()
	for _, secret := range []string{"tokens.csv", "admin.kubeconfig", "registry.kubeconfig", "identity.key", "registry.key", "ca.key", "sa.key"} {
		if _, err := os.Stat(filepath.Join(dir, secret)); err != nil {
			t.Errorf("%s: %v", secret, err)
		}
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		perm, rel := info.Mode().Perm(), strings.TrimPrefix(path, dir)
		switch public := strings.HasSuffix(path, ".crt") || strings.HasSuffix(path, ".pub"); {
		case d.IsDir() && perm != 0o700:
			t.Errorf("directory %q has mode %v, want 0700", rel, perm)
		case !d.IsDir() && public && perm&0o022 != 0:
			t.Errorf("%s has mode %v: others may write it", rel, perm)
		case !d.IsDir() && !public && perm&0o077 != 0:
			t.Errorf("%s has mode %v, want its user's alone (0600)", rel, perm)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readTrimmed(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
