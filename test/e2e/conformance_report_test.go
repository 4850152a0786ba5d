package e2e

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// The summary of a conformance run (TestConformance): each selected test's
// result on kube-apiserver and on kubesplit, read from the JUnit reports
// e2e.test wrote, as a markdown page.

// conformanceResult is one test's outcome on one server: passed, failed
// (with ginkgo's failure message on one line), skipped, or absent
// from that server's report.
type conformanceResult struct {
	status string
	reason string
}

const (
	resultPassed  = "passed"
	resultFailed  = "failed"
	resultSkipped = "skipped"
	resultMissing = "not run"
)

// junitSuites is the part of ginkgo's JUnit report the summary reads.
type junitSuites struct {
	Suites []struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Status  string `xml:"status,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// readJUnit returns the results of a ginkgo JUnit report by test name
// ("[It] " and the suite's own nodes left out).
func readJUnit(path string) (map[string]conformanceResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r junitSuites
	if err := xml.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	results := map[string]conformanceResult{}
	for _, s := range r.Suites {
		for _, c := range s.Cases {
			name, ok := strings.CutPrefix(c.Name, "[It] ")
			if !ok {
				continue
			}
			// Ginkgo appends the labels ("[sig-node, Conformance]"), which
			// the name says already.
			if i := strings.LastIndex(name, " ["); i > 0 && strings.HasSuffix(name, "]") && strings.Contains(name[i:], "sig-") {
				name = name[:i]
			}
			res := conformanceResult{status: c.Status}
			switch {
			case c.Failure != nil:
				res = conformanceResult{status: resultFailed, reason: oneLine(c.Failure.Message)}
			case c.Error != nil:
				res = conformanceResult{status: resultFailed, reason: oneLine(c.Error.Message)}
			case c.Status != resultPassed && c.Status != resultSkipped:
				// timedout, interrupted, panicked, aborted: failures too.
				res = conformanceResult{status: resultFailed, reason: c.Status}
			}
			results[name] = res
		}
	}
	return results, nil
}

// oneLine is a failure message on one line (gomega spreads "Expected …
// to equal …" over several), cut to 240 bytes so that a table row stays
// short.
func oneLine(msg string) string {
	line := strings.Join(strings.Fields(msg), " ")
	if len(line) > 240 {
		line = line[:240] + "…"
	}
	return strings.ReplaceAll(line, "|", `\|`)
}

// The outcome classes of the summary, in its order.
const (
	classBoth          = "pass on both"
	classKubesplitOnly = "fail on kubesplit only"
	classKubeOnly      = "fail on kube only"
	classFailBoth      = "fail on both"
	classOther         = "skipped or not run on one"
	// classUnselected: skipped on both, that is outside the selection
	// (e2e.test reports every test it has), only counted.
	classUnselected = "not selected"
)

func classify(kube, kubesplit conformanceResult) string {
	switch {
	case kube.status == resultPassed && kubesplit.status == resultPassed:
		return classBoth
	case kube.status == resultPassed && kubesplit.status == resultFailed:
		return classKubesplitOnly
	case kube.status == resultFailed && kubesplit.status == resultPassed:
		return classKubeOnly
	case kube.status == resultFailed && kubesplit.status == resultFailed:
		return classFailBoth
	case kube.status == resultSkipped && kubesplit.status == resultSkipped:
		return classUnselected
	}
	return classOther
}

// conformanceSummary renders the markdown page from both servers' results.
func conformanceSummary(kube, kubesplit map[string]conformanceResult, header string) string {
	names := map[string]bool{}
	for n := range kube {
		names[n] = true
	}
	for n := range kubesplit {
		names[n] = true
	}
	sorted := slices.Sorted(func(yield func(string) bool) {
		for n := range names {
			if !yield(n) {
				return
			}
		}
	})
	result := func(m map[string]conformanceResult, n string) conformanceResult {
		if r, ok := m[n]; ok {
			return r
		}
		return conformanceResult{status: resultMissing}
	}
	byClass := map[string][]string{}
	for _, n := range sorted {
		c := classify(result(kube, n), result(kubesplit, n))
		byClass[c] = append(byClass[c], n)
	}
	classes := []string{classBoth, classKubesplitOnly, classKubeOnly, classFailBoth, classOther}

	var b strings.Builder
	b.WriteString(header)
	fmt.Fprintf(&b, "\n| outcome | tests |\n|---|---|\n")
	for _, c := range classes {
		fmt.Fprintf(&b, "| %s | %d |\n", c, len(byClass[c]))
	}
	fmt.Fprintf(&b, "| total run | %d |\n", len(sorted)-len(byClass[classUnselected]))
	fmt.Fprintf(&b, "\n(%d more tests of e2e.test were not selected.)\n", len(byClass[classUnselected]))
	for _, c := range classes[1:] {
		if len(byClass[c]) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n| test | kube | kubesplit |\n|---|---|---|\n", c)
		for _, n := range byClass[c] {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", n, cell(result(kube, n)), cell(result(kubesplit, n)))
		}
	}
	if len(byClass[classBoth]) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n", classBoth)
		for _, n := range byClass[classBoth] {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
}

func cell(r conformanceResult) string {
	if r.reason == "" {
		return r.status
	}
	return r.status + ": " + r.reason
}

// writeConformanceSummary writes <dir>/summary.md from the reports the
// run wrote, naming the commit $KUBESPLIT_CONFORMANCE_COMMIT.
func writeConformanceSummary(t *testing.T, dir string) {
	results := map[string]map[string]conformanceResult{}
	for _, name := range []string{conformanceKube, conformanceKubesplit} {
		r, err := readJUnit(filepath.Join(dir, name+".junit.xml"))
		if err != nil {
			t.Errorf("summary: %v", err)
			r = map[string]conformanceResult{}
		}
		results[name] = r
	}
	header := fmt.Sprintf("# Conformance: kubesplit and kube-apiserver %s\n\n"+
		"Kubernetes %s's e2e.test, %s, "+
		"against each server with kube-controller-manager, kube-scheduler and kwok's fake nodes "+
		"(`make conformance`, hack/conformance.sh).\n\n- date: %s\n- kubesplit commit: %s\n",
		framework.KubeVersion, framework.KubeVersion, conformanceSelected(), time.Now().UTC().Format(time.RFC3339), os.Getenv("KUBESPLIT_CONFORMANCE_COMMIT"))
	path := filepath.Join(dir, "summary.md")
	if err := os.WriteFile(path, []byte(conformanceSummary(results[conformanceKube], results[conformanceKubesplit], header)), 0o644); err != nil {
		t.Errorf("summary: %v", err)
		return
	}
	t.Logf("summary: %s", path)
}

// conformanceSelected says which tests the run was asked for.
func conformanceSelected() string {
	focus := os.Getenv("KUBESPLIT_CONFORMANCE_FOCUS")
	if focus == "" {
		return "the [Conformance] tests selected by test/conformance/selection.txt"
	}
	s := fmt.Sprintf("the tests matching `%s` labelled `%s`", focus, conformanceLabels())
	if skip := os.Getenv("KUBESPLIT_CONFORMANCE_SKIP"); skip != "" {
		s += fmt.Sprintf(", but not `%s`", skip)
	}
	return s
}

// TestConformanceSummary: the summary classes each test by its results on
// both servers, gives a failure's message on one line, counts what ran on one
// server only apart, and only counts what neither ran.
func TestConformanceSummary(t *testing.T) {
	dir := t.TempDir()
	write := func(name, cases string) string {
		path := filepath.Join(dir, name)
		doc := `<?xml version="1.0" encoding="UTF-8"?><testsuites><testsuite name="Kubernetes e2e suite">` +
			`<testcase name="[SynchronizedBeforeSuite]" status="passed"></testcase>` + cases + `</testsuite></testsuites>`
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	kube, err := readJUnit(write("kube.xml", `<testcase name="[It] a [Conformance]" status="passed"></testcase>`+
		`<testcase name="[It] b [Conformance]" status="passed"></testcase>`+
		`<testcase name="[It] c [Conformance]" status="failed"><failure message="c broke&#xA;details" type="failed"></failure></testcase>`+
		`<testcase name="[It] d [Conformance]" status="timedout"></testcase>`+
		`<testcase name="[It] e [sig-x, Conformance]" status="skipped"></testcase>`))
	if err != nil {
		t.Fatal(err)
	}
	kubesplit, err := readJUnit(write("kubesplit.xml", `<testcase name="[It] a [Conformance]" status="passed"></testcase>`+
		`<testcase name="[It] b [Conformance]" status="failed"><failure message="&#xA;b | broke" type="failed"></failure></testcase>`+
		`<testcase name="[It] c [Conformance]" status="failed"><failure message="c broke too" type="failed"></failure></testcase>`+
		`<testcase name="[It] e [sig-x, Conformance]" status="skipped"></testcase>`))
	if err != nil {
		t.Fatal(err)
	}
	got := conformanceSummary(kube, kubesplit, "# header\n")
	for _, want := range []string{
		"| pass on both | 1 |", "| fail on kubesplit only | 1 |", "| fail on both | 1 |",
		"| skipped or not run on one | 1 |", "| total run | 4 |", "(1 more tests",
		"| b [Conformance] | passed | failed: b \\| broke |",
		"| c [Conformance] | failed: c broke details | failed: c broke too |",
		"| d [Conformance] | failed: timedout | not run |",
		"- a [Conformance]\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "SynchronizedBeforeSuite") || strings.Contains(got, "| e") || strings.Contains(got, "sig-x") {
		t.Errorf("summary lists the suite's own nodes:\n%s", got)
	}
}
