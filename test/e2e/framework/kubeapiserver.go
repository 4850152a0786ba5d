package framework

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/pkg/testpki"
)

// KubeVersion is the Kubernetes release hack/kube-binaries.sh builds, the
// one kubesplit is compared with.
const KubeVersion = "v1.37.2"

const (
	// kubeReadyTimeout bounds the wait for etcd and then kube-apiserver to
	// be ready: kube-apiserver bootstraps its RBAC roles and priority
	// levels first, which takes a while on a loaded machine.
	kubeReadyTimeout = 2 * time.Minute
	// kubeLogTail is how much of each log a failed test prints; the whole
	// file stays in the test's temporary directory until it ends.
	kubeLogTail = 64 << 10
)

var (
	kubeBinDirOnce sync.Once
	kubeBinDirPath string
	kubeBinDirErr  error
)

// KubeBinDir returns the directory holding the real Kubernetes binaries
// (kube-apiserver, kube-controller-manager, kube-scheduler, etcd, kwok):
// $KUBESPLIT_KUBE_BIN when set (make test builds them first), otherwise
// what hack/kube-binaries.sh prints after building them into its cache,
// run once per test process (about ten minutes when the cache is cold).
func KubeBinDir() (string, error) {
	kubeBinDirOnce.Do(func() {
		if dir := os.Getenv("KUBESPLIT_KUBE_BIN"); dir != "" {
			kubeBinDirPath = dir
			return
		}
		root, err := repoRoot()
		if err != nil {
			kubeBinDirErr = err
			return
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command("bash", filepath.Join(root, "hack", "kube-binaries.sh"))
		cmd.Dir, cmd.Stdout, cmd.Stderr = root, &stdout, &stderr
		if err := cmd.Run(); err != nil {
			kubeBinDirErr = fmt.Errorf("hack/kube-binaries.sh: %v\n%s", err, stderr.String())
			return
		}
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		kubeBinDirPath = lines[len(lines)-1]
	})
	return kubeBinDirPath, kubeBinDirErr
}

// KubeAPIServer is a real kube-apiserver (KubeVersion) on loopback with an
// etcd of its own, started by a test to compare kubesplit with kube: the
// same admin in system:masters, RBAC, service accounts, and HTTPS with a
// certificate of the test's own CA.
type KubeAPIServer struct {
	// AdminToken is in system:masters, as Stack.AdminToken is.
	AdminToken string
	// CAFile is the CA the serving certificate chains to.
	CAFile string
	// ClientCA signs client certificates kube-apiserver accepts
	// (ClientCA.Issue(t, user, groups...)).
	ClientCA *CertAuthority
	// EtcdEndpoint is its etcd's client URL (http://127.0.0.1:<port>).
	EtcdEndpoint string
	url          string
	dir          string
	proc         *process
	etcd         *process
}

// StartKubeAPIServer starts etcd and kube-apiserver on loopback ports, with
// args as extra kube-apiserver flags, returns once /readyz passes, and
// stops both when the test ends. Its authorizers are Node and RBAC unless
// args name an --authorization-config, which kube takes only alone.
func StartKubeAPIServer(t testing.TB, args ...string) *KubeAPIServer {
	t.Helper()
	bin, err := KubeBinDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	base := freePortRun(t, 3)
	apiPort, etcdClient, etcdPeer := base, base+1, base+2
	k := &KubeAPIServer{dir: dir, url: fmt.Sprintf("https://127.0.0.1:%d", apiPort), AdminToken: randomToken(t),
		EtcdEndpoint: fmt.Sprintf("http://127.0.0.1:%d", etcdClient)}

	peer := fmt.Sprintf("http://127.0.0.1:%d", etcdPeer)
	k.etcd = startLogged(t, "kube-etcd", filepath.Join(dir, "etcd.log"), filepath.Join(bin, "etcd"),
		"--name", "kube", "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", k.EtcdEndpoint, "--advertise-client-urls", k.EtcdEndpoint,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "kube="+peer, "--initial-cluster-state", "new",
		"--unsafe-no-fsync", "--log-level", "warn")
	waitKubeReady(t, k.etcd, "etcd", func() bool { return etcdHealthy(k.EtcdEndpoint) })

	serving := NewCertAuthority(t, "kube-e2e-serving")
	cert, key := serving.Serving(t)
	k.CAFile = serving.File(t)
	k.ClientCA = NewCertAuthority(t, "kube-e2e-clients")
	saKey, saPub := serviceAccountKeys(t, dir)
	tokens := filepath.Join(dir, "tokens.csv")
	writeFile(t, tokens, []byte(k.AdminToken+`,admin,uid-admin,"system:masters"`+"\n"))
	k.proc = startLogged(t, "kube-apiserver", filepath.Join(dir, "kube-apiserver.log"), filepath.Join(bin, "kube-apiserver"),
		append([]string{
			"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", apiPort), "--advertise-address=127.0.0.1",
			// The default reconciler publishes the advertise address as
			// the kubernetes Service's endpoint, which must not be loopback.
			"--endpoint-reconciler-type=none",
			"--etcd-servers=" + k.EtcdEndpoint,
			"--tls-cert-file=" + cert, "--tls-private-key-file=" + key,
			"--client-ca-file=" + k.ClientCA.File(t),
			"--token-auth-file=" + tokens,
			"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
			"--service-account-key-file=" + saPub, "--service-account-signing-key-file=" + saKey,
			"--service-cluster-ip-range=10.0.0.0/24",
		}, append(authorizationMode(args), args...)...)...)
	c := k.HTTPClient(t)
	waitKubeReady(t, k.proc, "kube-apiserver", func() bool { return k.answers(c, "/readyz") })
	return k
}

// authorizationMode is the default authorizers' flag, unless args
// configure them otherwise.
func authorizationMode(args []string) []string {
	for _, a := range args {
		if strings.HasPrefix(a, "--authorization-config") || strings.HasPrefix(a, "--authorization-mode") {
			return nil
		}
	}
	return []string{"--authorization-mode=Node,RBAC"}
}

// URL is https://127.0.0.1:<port>.
func (k *KubeAPIServer) URL() string { return k.url }

// PID is kube-apiserver's process id.
func (k *KubeAPIServer) PID() int { return k.proc.PID() }

// Logs are what kube-apiserver has written so far.
func (k *KubeAPIServer) Logs() string {
	b, _ := os.ReadFile(filepath.Join(k.dir, "kube-apiserver.log"))
	return string(b)
}

// RESTConfig is a client-go configuration for kube-apiserver as the admin.
func (k *KubeAPIServer) RESTConfig() *rest.Config {
	return &rest.Config{Host: k.url, BearerToken: k.AdminToken, TLSClientConfig: rest.TLSClientConfig{CAFile: k.CAFile}}
}

// Client is a clientset for kube-apiserver as the admin.
func (k *KubeAPIServer) Client(t testing.TB) *kubernetes.Clientset {
	t.Helper()
	c, err := kubernetes.NewForConfig(k.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// HTTPClient trusts kube-apiserver's CA and sends no credentials.
func (k *KubeAPIServer) HTTPClient(t testing.TB) *http.Client {
	t.Helper()
	c, err := rest.HTTPClientFor(&rest.Config{Host: k.url, TLSClientConfig: rest.TLSClientConfig{CAFile: k.CAFile}})
	if err != nil {
		t.Fatal(err)
	}
	c.Timeout = 30 * time.Second
	return c
}

// Kubeconfig writes an admin kubeconfig for kube-apiserver into a
// temporary directory of t and returns its path.
func (k *KubeAPIServer) Kubeconfig(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	writeFile(t, path, fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters: [{name: kube, cluster: {server: %q, certificate-authority: %q}}]
users: [{name: admin, user: {token: %q}}]
contexts: [{name: kube, context: {cluster: kube, user: admin}}]
current-context: kube
`, k.url, k.CAFile, k.AdminToken))
	return path
}

// Kubectl runs the kubectl on the PATH (or $KUBECTL) as the admin, with
// stdin and a discovery cache of the test's own, and returns its output.
func (k *KubeAPIServer) Kubectl(t testing.TB, stdin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := []string{"--kubeconfig", k.Kubeconfig(t), "--cache-dir", filepath.Join(t.TempDir(), "kubectl-cache")}
	cmd := exec.CommandContext(ctx, kubectlPath(), append(base, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// answers reports whether a GET of path as the admin is a 200.
func (k *KubeAPIServer) answers(c *http.Client, path string) bool {
	req, err := http.NewRequest(http.MethodGet, k.url+path, nil)
	if err != nil {
		return false
	}
	req.Header.Set("Authorization", "Bearer "+k.AdminToken)
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// startLogged starts path with args through start, its output going to
// logFile (the shell execs it, so the PID is the binary's), and prints
// the end of that file if the test fails.
func startLogged(t testing.TB, name, logFile, path string, args ...string) *process {
	t.Helper()
	cmd := exec.Command("/bin/sh", append([]string{"-c", `exec "$@" >"$0" 2>&1`, logFile, path}, args...)...)
	return start(t, name, cmd, func(*process) { t.Logf("%s logs (%s):\n%s", name, logFile, logTail(logFile)) })
}

// logTail is the last kubeLogTail bytes of a log file, from a line start.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) <= kubeLogTail {
		return string(b)
	}
	tail := b[len(b)-kubeLogTail:]
	if i := bytes.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	return fmt.Sprintf("[... %d bytes before]\n%s", len(b)-len(tail), tail)
}

// waitKubeReady polls ready until it holds, failing the test with the
// process's log if it exits first or the deadline passes.
func waitKubeReady(t testing.TB, p *process, what string, ready func() bool) {
	t.Helper()
	exited := false
	ok := polltest.Within(kubeReadyTimeout, func() bool {
		select {
		case <-p.exited:
			exited = true
			return true
		default:
		}
		return ready()
	})
	switch {
	case exited:
		t.Fatalf("%s exited before it was ready (%v)", what, p.waitErr)
	case !ok:
		t.Fatalf("%s not ready after %v", what, kubeReadyTimeout)
	}
}

// etcdHealthy reports whether etcd's /health says it is.
func etcdHealthy(endpoint string) bool {
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(endpoint + "/health")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode == http.StatusOK && bytes.Contains(b, []byte(`"health":"true"`))
}

// serviceAccountKeys writes the key kube-apiserver signs service-account
// tokens with (ES256) and its public half, and returns their paths.
func serviceAccountKeys(t testing.TB, dir string) (keyFile, pubFile string) {
	t.Helper()
	key := testpki.NewKey(t)
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	keyFile, pubFile = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	writeFile(t, keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	writeFile(t, pubFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}))
	return keyFile, pubFile
}
