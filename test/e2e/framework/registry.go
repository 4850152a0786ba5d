package framework

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Registry is a registry binary started by a test.
type Registry struct {
	URL        string
	Kubeconfig string
	Etcd       *Etcd
	proc       *process
}

// StartRegistry starts the registry binary in its development mode (no
// identity checks) against an etcd of the test's own, waits until it is
// ready, and stops it when the test ends.
func StartRegistry(t testing.TB, args ...string) *Registry {
	t.Helper()
	return launchRegistry(t, StartEtcd(t), append([]string{"--insecure-allow-unauthenticated"}, args...))
}

// StartRegistryWithIdentity starts the registry as it runs behind the
// aggregator: every request must carry an identity assertion signed by a
// key whose public half is in keyFile.
func StartRegistryWithIdentity(t testing.TB, keyFile string, args ...string) *Registry {
	t.Helper()
	return launchRegistry(t, StartEtcd(t), append([]string{"--identity-public-key-file", keyFile}, args...))
}

// launchRegistry runs one registry process on etcd e.
func launchRegistry(t testing.TB, e *Etcd, args []string) *Registry {
	t.Helper()
	p := launch(t, "registry", append([]string{"--bind-address", "127.0.0.1:0", "--etcd-servers", e.Endpoint}, args...))
	return &Registry{URL: p.url, Kubeconfig: writeKubeconfig(t, t.TempDir(), p.url), Etcd: e, proc: p}
}

func writeKubeconfig(t testing.TB, dir, url string) string {
	t.Helper()
	path := filepath.Join(dir, "kubeconfig")
	content := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: kubesplit, cluster: {server: %q}}]
users: [{name: admin, user: {}}]
contexts: [{name: kubesplit, context: {cluster: kubesplit, user: admin}}]
current-context: kubesplit
`, url)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// RESTConfig is a client-go configuration for the registry. With protobuf,
// built-in kinds travel as protobuf, as client-go's generated clients do by
// default against kube-apiserver.
func (r *Registry) RESTConfig(t testing.TB, protobuf bool) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", r.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst = 1000, 1000
	if protobuf {
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
		cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	}
	return cfg
}

// Client is a client-go clientset speaking protobuf.
func (r *Registry) Client(t testing.TB) *kubernetes.Clientset {
	t.Helper()
	c, err := kubernetes.NewForConfig(r.RESTConfig(t, true))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Kubectl runs the kubectl on the PATH (or $KUBECTL) against the registry,
// with stdin when given, and returns its output.
func (r *Registry) Kubectl(t testing.TB, stdin string, args ...string) (string, error) {
	t.Helper()
	return r.KubectlBinary(t, kubectlPath(), stdin, args...)
}

// KubectlBinary runs a given kubectl binary.
func (r *Registry) KubectlBinary(t testing.TB, kubectl, stdin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", r.Kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func kubectlPath() string {
	if k := os.Getenv("KUBECTL"); k != "" {
		return k
	}
	return "kubectl"
}

// MustKubectl runs kubectl and fails the test when it fails.
func (r *Registry) MustKubectl(t testing.TB, stdin string, args ...string) string {
	t.Helper()
	out, err := r.Kubectl(t, stdin, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}
