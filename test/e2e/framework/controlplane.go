package framework

import (
	"bufio"
	"crypto/tls"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
)

// KwokNodeAnnotation is the annotation (key=value) that makes the kwok a
// ControlPlane runs manage a Node: a test creates its fake nodes with it.
const (
	KwokNodeAnnotationKey   = "kwok.x-k8s.io/node"
	KwokNodeAnnotationValue = "fake"
)

// kwokStages are the stages kwok plays (see the file's header).
//
//go:embed kwok-stages.yaml
var kwokStages []byte

// controlPlaneErrorLines bounds how many distinct error lines of each
// component a failed test prints before the end of its log.
const controlPlaneErrorLines = 60

// ControlPlane is the rest of a Kubernetes control plane run against an
// API server by a test: the real kube-controller-manager and
// kube-scheduler (KubeVersion) and kwok, which plays the kubelet of the
// fake nodes annotated KwokNodeAnnotationKey=KwokNodeAnnotationValue.
type ControlPlane struct {
	dir   string
	procs map[string]*process
}

// The components of a ControlPlane, as Logs names them.
const (
	ComponentControllerManager = "kube-controller-manager"
	ComponentScheduler         = "kube-scheduler"
	ComponentKwok              = "kwok"
)

// StartControlPlane starts kube-controller-manager (every default
// controller, the kubeconfig's own credentials for all of them, no leader
// election), kube-scheduler (no leader election) and kwok against the API
// server kubeconfig reaches, with kcmArgs as extra kube-controller-manager
// flags (--service-account-private-key-file when the server issues
// service-account tokens). It returns once both kube components answer
// /healthz, and stops the three by PID when the test ends, printing their
// error lines and the end of their logs if it failed (and keeping the
// logs in $KUBESPLIT_CONTROLPLANE_LOGS when set).
func StartControlPlane(t testing.TB, kubeconfig string, kcmArgs ...string) *ControlPlane {
	t.Helper()
	bin, err := KubeBinDir()
	if err != nil {
		t.Fatal(err)
	}
	c := &ControlPlane{dir: t.TempDir(), procs: map[string]*process{}}
	// Registered first, so it runs once the components have stopped.
	t.Cleanup(func() { c.keepLogs(t) })
	base := freePortRun(t, 2)
	kcmPort, schedulerPort := base, base+1

	c.start(t, ComponentControllerManager, filepath.Join(bin, "kube-controller-manager"), append([]string{
		"--kubeconfig=" + kubeconfig,
		"--controllers=*",
		"--use-service-account-credentials=false",
		"--leader-elect=false",
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", kcmPort),
		"--cert-dir=" + filepath.Join(c.dir, "kcm-certs"),
		// kube-root-ca.crt's CA: without the flag kube-controller-manager
		// takes its kubeconfig's inline CA data, which ours do not have
		// (they name a file), and publishes an empty ca.crt.
		"--root-ca-file=" + kubeconfigCAFile(t, kubeconfig),
	}, kcmArgs...)...)
	c.start(t, ComponentScheduler, filepath.Join(bin, "kube-scheduler"),
		"--kubeconfig="+kubeconfig,
		"--leader-elect=false",
		"--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", schedulerPort),
		"--cert-dir="+filepath.Join(c.dir, "scheduler-certs"))

	stages := filepath.Join(c.dir, "kwok-stages.yaml")
	writeFile(t, stages, kwokStages)
	c.start(t, ComponentKwok, filepath.Join(bin, "kwok"),
		"--kubeconfig="+kubeconfig,
		"--config="+stages,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector="+KwokNodeAnnotationKey+"="+KwokNodeAnnotationValue,
		// Node Leases, renewed as a kubelet renews them: without them the
		// nodes' only heartbeat is their status, which the stages renew
		// every ten minutes, so kube-controller-manager finds them silent
		// after its 50 s grace period and marks their pods not Ready (kwok
		// makes the node Ready again at once, not the pods).
		"--node-lease-duration-seconds=40",
		// Pod IPs of their own, apart from any Service range.
		"--cidr=10.244.0.0/16")

	// Their serving certificates are self-signed.
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for name, port := range map[string]int{ComponentControllerManager: kcmPort, ComponentScheduler: schedulerPort} {
		url := fmt.Sprintf("https://127.0.0.1:%d/healthz", port)
		waitKubeReady(t, c.procs[name], name, func() bool {
			resp, err := hc.Get(url)
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		})
	}
	return c
}

// start runs one component with its output in <dir>/<name>.log.
func (c *ControlPlane) start(t testing.TB, name, path string, args ...string) {
	t.Helper()
	logFile := c.LogFile(name)
	cmd := exec.Command("/bin/sh", append([]string{"-c", `exec "$@" >"$0" 2>&1`, logFile, path}, args...)...)
	// kwok keeps a work directory under $HOME (~/.kwok): the test's own.
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(c.dir, "home"))
	c.procs[name] = start(t, name, cmd, func(*process) {
		t.Logf("%s: distinct error lines (%s):\n%s", name, logFile, ErrorLines(logFile, controlPlaneErrorLines))
		t.Logf("%s logs (%s):\n%s", name, logFile, logTail(logFile))
	})
}

// keepLogs copies the components' logs into
// $KUBESPLIT_CONTROLPLANE_LOGS/<test name>/ when that is set, to read
// them after a run that passed as well.
func (c *ControlPlane) keepLogs(t testing.TB) {
	dir := os.Getenv("KUBESPLIT_CONTROLPLANE_LOGS")
	if dir == "" {
		return
	}
	dir = filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Errorf("keep the control plane's logs: %v", err)
		return
	}
	for name := range c.procs {
		b, err := os.ReadFile(c.LogFile(name))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name+".log"), b, 0o644)
		}
		if err != nil {
			t.Errorf("keep the %s log: %v", name, err)
		}
	}
	t.Logf("control plane logs kept in %s", dir)
}

// LogFile is the path of a component's log (ComponentControllerManager,
// ComponentScheduler, ComponentKwok).
func (c *ControlPlane) LogFile(name string) string { return filepath.Join(c.dir, name+".log") }

// Logs is what a component has written so far.
func (c *ControlPlane) Logs(name string) string {
	b, _ := os.ReadFile(c.LogFile(name))
	return string(b)
}

// PID is a component's process id.
func (c *ControlPlane) PID(name string) int { return c.procs[name].PID() }

// ErrorLines returns the first max distinct error and warning lines of a
// log written by a kube component (klog's E and W lines) or kwok (its
// ERROR and WARN JSON records), each without its timestamp so that a
// repeated error counts once, with how often it occurred.
func ErrorLines(logFile string, max int) string {
	f, err := os.Open(logFile)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	var order []string
	count := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		key, ok := errorKey(sc.Text())
		if !ok {
			continue
		}
		if count[key] == 0 {
			order = append(order, key)
		}
		count[key]++
	}
	var b strings.Builder
	for i, key := range order {
		if i == max {
			fmt.Fprintf(&b, "[... %d more distinct lines]\n", len(order)-max)
			break
		}
		fmt.Fprintf(&b, "%5dx %s\n", count[key], key)
	}
	return b.String()
}

// errorKey is an error or warning line without its timestamp, process id
// and source position.
func errorKey(line string) (string, bool) {
	// klog: "E1126 10:20:52.723146   19780 run.go:72] message".
	if len(line) > 1 && (line[0] == 'E' || line[0] == 'W') && line[1] >= '0' && line[1] <= '9' {
		if i := strings.Index(line, "] "); i > 0 {
			return line[:1] + " " + line[i+2:], true
		}
	}
	// kwok, writing to a file: one JSON record a line.
	if strings.HasPrefix(line, "{") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			return "", false
		}
		level, _ := rec["level"].(string)
		if level != "ERROR" && level != "WARN" {
			return "", false
		}
		msg, _ := rec["msg"].(string)
		delete(rec, "time")
		delete(rec, "level")
		delete(rec, "msg")
		delete(rec, "source")
		rest, _ := json.Marshal(rec) // sorted keys
		return level + " " + msg + " " + string(rest), true
	}
	return "", false
}

// ServiceAccountKeyFile is the private key kube-apiserver signs
// service-account tokens with, for kube-controller-manager's
// --service-account-private-key-file.
func (k *KubeAPIServer) ServiceAccountKeyFile() string { return filepath.Join(k.dir, "sa.key") }

// ServiceAccountKeyFile is the private key authn signs service-account
// tokens with (the development key it generates under its --cert-dir), for
// kube-controller-manager's --service-account-private-key-file.
func (s *Stack) ServiceAccountKeyFile() string {
	args := s.args[StageAuthn]
	for i, a := range args {
		if a == "--cert-dir" && i+1 < len(args) {
			return filepath.Join(args[i+1], "sa.key")
		}
		if v, ok := strings.CutPrefix(a, "--cert-dir="); ok {
			return filepath.Join(v, "sa.key")
		}
	}
	return ""
}

// DeployTree copies deploy/k8s into a temporary directory of t and writes
// the certificates its Secrets are made from there (what `make certs`
// does, with kubesplit-certs), so that `kubectl apply -k` can render it
// without touching the repository. It returns the copy's root.
func DeployTree(t testing.TB) string {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "deploy", "k8s")
	dst := filepath.Join(t.TempDir(), "k8s")
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel == filepath.Join("base", "certs") {
				return filepath.SkipDir // a developer's own
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !strings.HasSuffix(path, ".yaml") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	certs, err := binary("kubesplit-certs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(certs, "--dir", filepath.Join(dst, "base", "certs"), "--namespace", "kubesplit")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kubesplit-certs: %v\n%s", err, out)
	}
	return dst
}

// kubeconfigCAFile is the CA file the kubeconfig's current cluster names.
func kubeconfigCAFile(t testing.TB, kubeconfig string) string {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CAFile == "" {
		t.Fatalf("%s names no CA file", kubeconfig)
	}
	return cfg.CAFile
}

// BesideKubeControllerManager are the stages' flags that leave out the
// controllers a kube-controller-manager runs (with --controllers=*), as a
// deploy beside one would: the registry's housekeeping controllers and
// admission's quota recount.
func BesideKubeControllerManager() map[string][]string {
	return map[string][]string{
		StageRegistry: {"--controllers=*,-namespace-controller,-serviceaccount-controller,-garbage-collector-controller," +
			"-root-ca-certificate-publisher-controller,-validatingadmissionpolicy-status-controller"},
		StageAdmission: {"--controllers=*,-resourcequota-controller"},
	}
}
