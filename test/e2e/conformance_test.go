package e2e

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// Kubernetes' own conformance tests, run by kube's e2e test binary against
// kubesplit and against a real kube-apiserver, each with the real
// kube-controller-manager and kube-scheduler and kwok's fake nodes
// (issue 13). It is long, so it runs only when asked: `make conformance`
// (hack/conformance.sh) sets
//
//	KUBESPLIT_CONFORMANCE_DIR        where the reports and summary.md go
//	KUBESPLIT_CONFORMANCE_SELECTION  the selection file (default
//	                                 test/conformance/selection.txt)
//	KUBESPLIT_CONFORMANCE_TIMEOUT    ginkgo's timeout per server (default 60m)
//	KUBESPLIT_CONFORMANCE_FOCUS      a regular expression of test names run
//	                                 instead of the selection (to debug a few)
//	KUBESPLIT_CONFORMANCE_SKIP       a regular expression of tests left out
//	KUBESPLIT_CONFORMANCE_LABELS     ginkgo's label filter (default
//	                                 Conformance); with FOCUS, it runs kube's
//	                                 other e2e tests the same way
//	KUBESPLIT_CONFORMANCE_PARALLEL=1 both servers at once (half the time,
//	                                 twice the load)
//	KUBESPLIT_CONFORMANCE_SUMMARY_ONLY=1 no run: summary.md again from the
//	                                 reports already in the directory
//
// A test failing in e2e.test does not fail this Go test: the summary
// reports it. Only a run that could not happen does.

// conformanceNodes is how many fake nodes kwok plays the kubelet of: the
// sig-architecture test asks for at least two schedulable ones.
const conformanceNodes = 3

func TestConformance(t *testing.T) {
	out := os.Getenv("KUBESPLIT_CONFORMANCE_DIR")
	if out == "" {
		t.Skip("KUBESPLIT_CONFORMANCE_DIR is not set: run make conformance")
	}
	if os.Getenv("KUBESPLIT_CONFORMANCE_SUMMARY_ONLY") == "1" {
		writeConformanceSummary(t, out)
		return
	}
	if _, err := framework.KubeE2ETest(); err != nil {
		t.Fatal(err)
	}
	selection := os.Getenv("KUBESPLIT_CONFORMANCE_SELECTION")
	if selection == "" {
		selection = filepath.Join("..", "conformance", "selection.txt")
	}
	focus, err := conformanceFocus(selection)
	if err != nil {
		t.Fatal(err)
	}
	timeout := 60 * time.Minute
	if v := os.Getenv("KUBESPLIT_CONFORMANCE_TIMEOUT"); v != "" {
		if timeout, err = time.ParseDuration(v); err != nil {
			t.Fatalf("KUBESPLIT_CONFORMANCE_TIMEOUT: %v", err)
		}
	}
	run := conformanceRun{dir: out, focus: focus, narrow: os.Getenv("KUBESPLIT_CONFORMANCE_FOCUS"),
		skip: os.Getenv("KUBESPLIT_CONFORMANCE_SKIP"), labels: conformanceLabels(),
		timeout: timeout}
	parallel := os.Getenv("KUBESPLIT_CONFORMANCE_PARALLEL") == "1"
	// The subtests run before the cleanups of this test, parallel or not.
	t.Cleanup(func() { writeConformanceSummary(t, out) })

	t.Run(conformanceKube, func(t *testing.T) {
		if parallel {
			t.Parallel()
		}
		// It advertises the address the kubesplit stack does, with kube's
		// default endpoint reconciler, so that the kubernetes Service has
		// an endpoint on both (nothing dials it).
		k := framework.StartKubeAPIServer(t, "--endpoint-reconciler-type=lease",
			"--advertise-address="+framework.StackAdvertiseAddress)
		run.against(t, conformanceKube, k.Kubeconfig(t), k.Client(t), "--service-account-private-key-file="+k.ServiceAccountKeyFile())
	})
	t.Run(conformanceKubesplit, func(t *testing.T) {
		if parallel {
			t.Parallel()
		}
		// kube-controller-manager runs the controllers the registry would
		// otherwise run too, as in TestControlPlaneOnKubesplit.
		s := framework.StartStack(t, framework.StackOptions{Args: framework.BesideKubeControllerManager()})
		run.against(t, conformanceKubesplit, s.Aggregator.Kubeconfig(t, "admin", s.AdminToken), s.Client(t, s.AdminToken),
			"--service-account-private-key-file="+s.ServiceAccountKeyFile())
	})
}

// The servers, as the reports and the summary name them.
const (
	conformanceKube      = "kube"
	conformanceKubesplit = "kubesplit"
)

// conformanceSeed is ginkgo's random seed, fixed: it decides the order
// the tests run in.
const conformanceSeed = "13"

// conformanceLabels is ginkgo's label filter of the run.
func conformanceLabels() string {
	return cmp.Or(os.Getenv("KUBESPLIT_CONFORMANCE_LABELS"), "Conformance")
}

// conformanceRun is one e2e.test run's settings, the same for both servers.
type conformanceRun struct {
	dir, focus, narrow, skip, labels string
	timeout                          time.Duration
}

// against starts the control plane and the fake nodes on the API server
// kubeconfig (and c, the admin's client) reaches and runs the selected tests there, writing
// <dir>/<name>.junit.xml and <name>.log.
func (r conformanceRun) against(t *testing.T, name, kubeconfig string, c kubernetes.Interface, kcmArgs ...string) {
	framework.StartControlPlane(t, kubeconfig, kcmArgs...)
	for i := range conformanceNodes {
		createFakeNode(t, c, fmt.Sprintf("kwok-node-%d", i))
	}
	cpWait(t, 60*time.Second, "every fake node Ready", func(ctx context.Context) (bool, string, error) {
		list, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "type=kwok"})
		if err != nil {
			return false, "", err
		}
		ready := 0
		for i := range list.Items {
			if nodeReady(&list.Items[i]) {
				ready++
			}
		}
		return ready == conformanceNodes, fmt.Sprintf("%d of %d Ready", ready, len(list.Items)), nil
	})

	report := filepath.Join(r.dir, name+".junit.xml")
	_ = os.Remove(report)
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--provider=skeleton",
		"--ginkgo.label-filter=" + r.labels,
		"--ginkgo.focus=" + r.focus,
		"--ginkgo.timeout=" + r.timeout.String(),
		"--ginkgo.junit-report=" + report,
		// The same order on both servers, so that a run cut short by the
		// timeout has run the same tests on each.
		"--ginkgo.seed=" + conformanceSeed,
		"--ginkgo.no-color",
		"--ginkgo.v",
		// No kube-system pods to wait for, and the nodes are Ready already.
		"--minStartupPods=0",
		"--node-schedulable-timeout=2m",
		// The namespace dumps of failed tests would add minutes.
		"--dump-logs-on-failure=false",
	}
	if r.narrow != "" {
		// Two focus flags would match either test, so it replaces the
		// selection's.
		args[3] = "--ginkgo.focus=" + r.narrow
	}
	if r.skip != "" {
		args = append(args, "--ginkgo.skip="+r.skip)
	}
	start := time.Now()
	err := framework.RunKubeE2E(t, filepath.Join(r.dir, name+".log"), r.timeout+5*time.Minute, args...)
	t.Logf("e2e.test against %s: %v after %v (log %s)", name, err, time.Since(start).Round(time.Second), filepath.Join(r.dir, name+".log"))
	if _, statErr := os.Stat(report); statErr != nil {
		t.Fatalf("e2e.test against %s wrote no report (%v): %v", name, err, statErr)
	}
}

// conformanceFocus reads a selection file (one regular expression a line,
// # comments) into one focus expression matching any of them. Ginkgo
// matches it against more than the test's name, so it is not anchored:
// each line starts with its test's [sig-…], which is enough.
func conformanceFocus(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lines = append(lines, "(?:"+line+")")
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	if len(lines) == 0 {
		return "", fmt.Errorf("%s selects no test", path)
	}
	return strings.Join(lines, "|"), nil
}
