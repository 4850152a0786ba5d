package framework

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/identity"

	"github.com/kubesplit/kubesplit/pkg/polltest"
)

// The stages of the split stack, as Stack names them.
const (
	StageAggregator = "aggregator"
	StageRegistry   = "registry"
	StageAuthn      = "authn"
	StageAuthz      = "authz"
	StageAdmission  = "admission"
)

// StackOptions adds flags to the stages of a Stack.
type StackOptions struct {
	// Args are extra flags per stage name.
	Args map[string][]string
	// Users are extra lines of the aggregator's token file
	// (token,user,uid,"group1,group2").
	Users []string
	// OpenFiles, when positive, is a stage's open-file limit by name:
	// what a flood of connections runs into.
	OpenFiles map[string]int
}

// Stack is the whole split composition of hack/run.sh, started by a test:
// the five services on loopback ports of their own, etcd in a process of
// its own, the aggregator the only endpoint clients use, every hop between
// them HTTPS as make run and the deploys run them. Each stage can be
// stopped and started again on the same address, to test failure.
type Stack struct {
	Aggregator *Aggregator
	Etcd       *Etcd
	// AdminToken is in system:masters.
	AdminToken string
	// Addr holds each backend stage's host:port.
	Addr map[string]string
	// hopCA is the CA file the backends' serving certificate chains to.
	hopCA string
	args  map[string][]string
	procs map[string]*process
	// openFiles is StackOptions.OpenFiles.
	openFiles map[string]int
	// t is the test that started the stack: every process lives as long
	// as it does, even one restarted from a subtest.
	t testing.TB
}

// StartStack starts the five services, and returns once the aggregator's
// /readyz passes, which needs every upstream ready.
func StartStack(t testing.TB, opts StackOptions) *Stack {
	t.Helper()
	dir := t.TempDir()
	s := &Stack{t: t, Etcd: StartEtcd(t), Addr: map[string]string{}, args: map[string][]string{}, procs: map[string]*process{},
		openFiles: opts.OpenFiles}
	for _, name := range []string{StageRegistry, StageAuthn, StageAuthz, StageAdmission} {
		s.Addr[name] = FreeLoopbackAddress(t)
	}
	const scheme = "https://"
	tlsArgs := s.hopTLS(t)
	aggKey, aggPub := filepath.Join(dir, "aggregator.key"), filepath.Join(dir, "aggregator.pub")
	if err := identity.GenerateKeyFiles(aggKey, aggPub); err != nil {
		t.Fatal(err)
	}
	tokens, own := s.writeTokens(t, dir, opts.Users)
	s.args[StageAggregator] = append([]string{
		"--identity-key-file", aggKey, "--token-auth-file", tokens, "--authorization-mode", "Webhook",
		"--registry-url", scheme + s.Addr[StageRegistry], "--authn-url", scheme + s.Addr[StageAuthn],
		"--authz-url", scheme + s.Addr[StageAuthz], "--advertise-address", StackAdvertiseAddress,
	}, append(tlsArgs.client("--upstream-ca-file"), opts.Args[StageAggregator]...)...)
	s.Aggregator = startAggregator(t, opts.OpenFiles[StageAggregator], s.args[StageAggregator])
	admissionKey := filepath.Join(dir, "registry-admission.key")
	if err := identity.GenerateKeyFiles(admissionKey, admissionKey+".pub"); err != nil {
		t.Fatal(err)
	}
	s.args[StageRegistry] = []string{"--etcd-servers", s.Etcd.Endpoint, "--identity-public-key-file", aggPub,
		"--admission-url", scheme + s.Addr[StageAdmission], "--admission-identity-key-file", admissionKey,
		"--kubeconfig", s.Aggregator.Kubeconfig(t, "registry", own[StageRegistry]),
		// kube-root-ca.crt in every namespace holds the CA clients verify
		// the aggregator with.
		"--root-ca-file", s.Aggregator.CAFile}
	s.args[StageRegistry] = append(s.args[StageRegistry], tlsArgs.client("--admission-ca-file")...)
	// authn knows the token file too, so that a TokenReview of a static
	// token (a webhook client's, kube's own components') says who it is.
	s.args[StageAuthn] = []string{"--identity-public-key-file", aggPub, "--cert-dir", filepath.Join(dir, "authn"), "--token-auth-file", tokens,
		"--kubeconfig", s.Aggregator.Kubeconfig(t, "authn", own[StageAuthn])}
	s.args[StageAuthz] = []string{"--identity-public-key-file", aggPub,
		"--kubeconfig", s.Aggregator.Kubeconfig(t, "authz", own[StageAuthz])}
	s.args[StageAdmission] = []string{"--identity-public-key-file", admissionKey + ".pub",
		"--kubeconfig", s.Aggregator.Kubeconfig(t, "admission", own[StageAdmission])}
	for _, name := range []string{StageRegistry, StageAuthn, StageAuthz, StageAdmission} {
		s.args[name] = append(append(append([]string{"--bind-address", s.Addr[name]}, s.args[name]...), tlsArgs.serving...), opts.Args[name]...)
		s.Start(t, name)
	}
	// The registry stops first, while admission still answers: its
	// controllers give their leases back with writes that admission must
	// admit, and stopped after admission it would wait out its bound on
	// that (ten seconds of every test). Cleanups run last-registered first.
	t.Cleanup(func() { s.procs[StageRegistry].stop(t) })
	s.WaitReady(t, 90*time.Second)
	return s
}

// StackAdvertiseAddress is the address a Stack's aggregator advertises in
// the kubernetes Service's endpoints. The stack listens on loopback, which
// an Endpoints may not hold (kube-apiserver refuses to start with it), so
// it advertises an address of the documentation range instead: nothing
// dials it, it is only listed.
const StackAdvertiseAddress = "198.51.100.1"

// StartAggregatorReplica starts another aggregator in front of the same
// backends, with the same credentials and certificates as the stack's, and
// args (an --advertise-address of its own, say) added. It runs until the
// test ends or it is stopped.
func (s *Stack) StartAggregatorReplica(t testing.TB, args ...string) *Aggregator {
	t.Helper()
	shared := []string{"--cert-dir", filepath.Dir(s.Aggregator.CAFile)}
	return startAggregator(t, 0, append(append(slices.Clone(s.args[StageAggregator]), shared...), args...))
}

// hopTLS is the flags that make the hops between services HTTPS: every
// backend serves one certificate of a CA of the test's own, which its
// callers trust.
func (s *Stack) hopTLS(t testing.TB) hopFlags {
	t.Helper()
	ca := NewCertAuthority(t, "kubesplit-e2e-services")
	cert, key := ca.Serving(t)
	s.hopCA = ca.File(t)
	return hopFlags{ca: s.hopCA, serving: []string{"--tls-cert-file", cert, "--tls-private-key-file", key}}
}

// hopFlags are the TLS flags of a stack's backends and their callers.
type hopFlags struct {
	ca      string
	serving []string
}

// client is flag naming the CA file.
func (f hopFlags) client(flag string) []string { return []string{flag, f.ca} }

// writeTokens writes the token file: the admin, each stage's own
// credentials (system:masters, so they sync through the aggregator without
// asking authz, and ask it who may read their /metrics), and the test's
// users.
func (s *Stack) writeTokens(t testing.TB, dir string, users []string) (string, map[string]string) {
	t.Helper()
	s.AdminToken = randomToken(t)
	lines := []string{s.AdminToken + `,admin,uid-admin,"system:masters"`}
	own := map[string]string{}
	for _, name := range []string{StageRegistry, StageAuthn, StageAuthz, StageAdmission} {
		own[name] = randomToken(t)
		lines = append(lines, fmt.Sprintf(`%s,system:kubesplit:%s,uid-%s,"system:masters"`, own[name], name, name))
	}
	path := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(path, []byte(strings.Join(append(lines, users...), "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, own
}

func randomToken(t testing.TB) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// Start starts a backend stage (again, after Stop) on its address. It
// runs until the test that started the stack ends, even when a subtest
// restarts it.
func (s *Stack) Start(t testing.TB, name string) {
	t.Helper()
	s.procs[name] = launchLimited(s.t, name, s.openFiles[name], s.args[name])
}

// StartWith starts a backend stage again (after Stop) on its address with
// args added to its flags, for a test that changes how it runs.
func (s *Stack) StartWith(t testing.TB, name string, args ...string) {
	t.Helper()
	s.procs[name] = launchLimited(s.t, name, s.openFiles[name], append(slices.Clone(s.args[name]), args...))
}

// PID is a backend stage's process id, to read what it uses from /proc.
func (s *Stack) PID(name string) int { return s.procs[name].PID() }

// Stop stops a backend stage with SIGTERM, as an outage or a rollout would.
func (s *Stack) Stop(t testing.TB, name string) {
	t.Helper()
	s.procs[name].stop(t)
}

// Logs are what a stage has written so far.
func (s *Stack) Logs(name string) string { return s.procs[name].logs.String() }

// WaitReady polls until the aggregator's /readyz passes and the system
// namespaces exist (the registry creates them once admission answers).
func (s *Stack) WaitReady(t testing.TB, timeout time.Duration) {
	t.Helper()
	c := s.HTTPClient(t)
	polltest.Until(t, timeout, "the stack to be ready", func() bool {
		return s.answers(c, "/readyz", "") && s.answers(c, "/api/v1/namespaces/kube-system", s.AdminToken)
	})
}

// answers reports whether a GET of path with token is a 200.
func (s *Stack) answers(c *http.Client, path, token string) bool {
	req, err := http.NewRequest(http.MethodGet, s.Aggregator.URL+path, nil)
	if err != nil {
		return false
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// RESTConfig is a client-go configuration for the aggregator with token
// (anonymous when empty).
func (s *Stack) RESTConfig(t testing.TB, token string) *rest.Config {
	t.Helper()
	return &rest.Config{Host: s.Aggregator.URL, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAFile: s.Aggregator.CAFile}}
}

// Client is a clientset for the aggregator with token.
func (s *Stack) Client(t testing.TB, token string) *kubernetes.Clientset {
	t.Helper()
	c, err := kubernetes.NewForConfig(s.RESTConfig(t, token))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// HTTPClient trusts the aggregator's CA and sends no credentials.
func (s *Stack) HTTPClient(t testing.TB) *http.Client {
	t.Helper()
	cfg := s.RESTConfig(t, "")
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Timeout = 30 * time.Second
	return c
}
