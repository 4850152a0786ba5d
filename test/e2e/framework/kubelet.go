package framework

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/cri-streaming/pkg/streaming/portforward"
	"k8s.io/cri-streaming/pkg/streaming/remotecommand"
)

// TestKubelet is a kubelet's streaming API, over HTTPS on loopback, for
// the subresources an API server proxies to kubelets: /containerLogs
// (lines of its own, streamed while following), /exec and /attach (kube's
// own SPDY and WebSocket remote-command server, a command answering
// "exec <container>: <command>"), and /portForward (kube's own server,
// forwarding every port to ForwardTo). It asks for a client certificate
// of ClientCA, as a kubelet with --client-ca-file does.
type TestKubelet struct {
	// Port is the port it listens on, for a Node's
	// status.daemonEndpoints.kubeletEndpoint.
	Port int
	// CAFile is what its serving certificate chains to.
	CAFile string
	// ClientCertFile and ClientKeyFile are a certificate it accepts, for
	// --kubelet-client-certificate and --kubelet-client-key.
	ClientCertFile, ClientKeyFile string
	// ForwardTo is the address port-forwarding connects to.
	ForwardTo string
	// LogLines are what /containerLogs answers, one a line.
	LogLines []string
}

// StartTestKubelet starts a TestKubelet, stopped when the test ends.
func StartTestKubelet(t testing.TB, forwardTo string) *TestKubelet {
	t.Helper()
	serving := NewCertAuthority(t, "test-kubelet-serving")
	clients := NewCertAuthority(t, "test-kubelet-clients")
	cert, key := serving.Serving(t)
	certPEM, keyPEM := clients.Issue(t, "kube-apiserver-kubelet-client", "kubelet-api-admin")
	dir := t.TempDir()
	k := &TestKubelet{CAFile: serving.File(t), ForwardTo: forwardTo,
		ClientCertFile: dir + "/client.crt", ClientKeyFile: dir + "/client.key",
		LogLines: []string{"first line", "second line", "third line"}}
	writeFile(t, k.ClientCertFile, certPEM)
	writeFile(t, k.ClientKeyFile, keyPEM)
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	caPEM, err := os.ReadFile(clients.File(t))
	if err != nil {
		t.Fatal(err)
	}
	pool.AppendCertsFromPEM(caPEM)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	k.Port = ln.Addr().(*net.TCPAddr).Port
	// HTTP/1.1 only: the streams are connection upgrades, as a kubelet's.
	srv := &http.Server{Handler: k.routes(), ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert,
			NextProtos: []string{"http/1.1"}}}
	go func() { _ = srv.ServeTLS(ln, "", "") }()
	t.Cleanup(func() { _ = srv.Close() })
	return k
}

func (k *TestKubelet) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{ns}/{pod}/{container}", k.logs)
	mux.HandleFunc("/exec/{ns}/{pod}/{container}", func(w http.ResponseWriter, r *http.Request) {
		opts, err := remotecommand.NewOptions(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		remotecommand.ServeExec(w, r, fakeRuntime{}, r.PathValue("pod"), "", r.PathValue("container"), r.URL.Query()["command"], opts,
			time.Minute, 30*time.Second, remotecommand.SupportedStreamingProtocols)
	})
	mux.HandleFunc("/attach/{ns}/{pod}/{container}", func(w http.ResponseWriter, r *http.Request) {
		opts, err := remotecommand.NewOptions(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		remotecommand.ServeAttach(w, r, fakeRuntime{}, r.PathValue("pod"), "", r.PathValue("container"), opts,
			time.Minute, 30*time.Second, remotecommand.SupportedStreamingProtocols)
	})
	mux.HandleFunc("/portForward/{ns}/{pod}", func(w http.ResponseWriter, r *http.Request) {
		opts, err := portforward.NewV4Options(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		portforward.ServePortForward(w, r, forwarder{to: k.ForwardTo}, r.PathValue("pod"), "", opts,
			time.Minute, 30*time.Second, portforward.SupportedProtocols)
	})
	return mux
}

// logs answers the lines, then with follow=true one more a tenth of a
// second until the client leaves (at most a minute).
func (k *TestKubelet) logs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	lines := k.LogLines
	if n, err := strconv.Atoi(q.Get("tailLines")); err == nil && n < len(lines) {
		lines = lines[len(lines)-n:]
	}
	w.Header().Set("Content-Type", "text/plain")
	for _, l := range lines {
		fmt.Fprintf(w, "%s/%s: %s\n", r.PathValue("container"), r.PathValue("pod"), l)
	}
	if q.Get("follow") != "true" {
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(time.Minute)
	for i := 0; ; i++ {
		select {
		case <-r.Context().Done():
			return
		case <-deadline:
			return
		case <-tick.C:
			fmt.Fprintf(w, "followed line %d\n", i)
			_ = rc.Flush()
		}
	}
}

// fakeRuntime runs no process: exec answers what it was asked to run,
// attach echoes stdin.
type fakeRuntime struct{}

func (fakeRuntime) ExecInContainer(_ context.Context, _, _, container string, cmd []string, in io.Reader, out, _ io.WriteCloser,
	_ bool, _ <-chan remotecommand.TerminalSize, _ time.Duration) error {
	if out != nil {
		fmt.Fprintf(out, "exec %s: %s\n", container, strings.Join(cmd, " "))
	}
	return nil
}

func (fakeRuntime) AttachContainer(_ context.Context, _, _, container string, in io.Reader, out, _ io.WriteCloser,
	_ bool, _ <-chan remotecommand.TerminalSize) error {
	if out == nil {
		return nil
	}
	fmt.Fprintf(out, "attached to %s\n", container)
	if in != nil {
		_, _ = io.Copy(out, in)
	}
	return nil
}

// forwarder connects every forwarded port to one address.
type forwarder struct{ to string }

func (f forwarder) PortForward(ctx context.Context, _, _ string, _ int32, stream io.ReadWriteCloser) error {
	conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", f.to)
	if err != nil {
		return err
	}
	defer conn.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(conn, stream); done <- struct{}{} }()
	go func() { _, _ = io.Copy(stream, conn); done <- struct{}{} }()
	<-done
	return nil
}

// RunKubectl runs the kubectl on the PATH (or $KUBECTL) with kubeconfig
// until ctx ends, and returns its output, stdout then stderr.
func RunKubectl(ctx context.Context, kubeconfig string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, kubectlPath(), append([]string{"--kubeconfig", kubeconfig}, args...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String() + stderr.String(), err
}
