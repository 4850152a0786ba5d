package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes dir/stack/name, making the folder.
func writeFile(t *testing.T, dir, stack, name, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, stack), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, stack, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeRun writes one get round: its report and its CPU figures.
func writeRun(t *testing.T, dir, stack string, round int, total int, rps, p99 float64, cpu string) {
	t.Helper()
	writeFile(t, dir, stack, fmt.Sprintf("get.%d.json", round),
		fmt.Sprintf(`{"op":"get","concurrency":16,"total":%d,"requests_per_second":%g,"p99_ms":%g,"errors":{}}`, total, rps, p99))
	writeFile(t, dir, stack, fmt.Sprintf("get.%d.cpu", round), cpu)
}

// The table shows each stack's median throughput with its range, the ratio
// of the medians, the median p99s, CPU per request by process, and memory
// and start with their ratio.
func TestTable(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "kube", 1, 8000, 1000, 30, "kube-apiserver 4\netcd 1\n")
	writeRun(t, dir, "kube", 2, 12000, 1500, 20, "kube-apiserver 6\netcd 1\n")
	writeRun(t, dir, "split", 1, 16000, 2000, 10, "registry 3\naggregator 2\nauthn 0.001\n")
	writeRun(t, dir, "split", 2, 24000, 3000, 12, "registry 5\naggregator 2\n")
	writeFile(t, dir, "kube", "memory", "900 1200\n")
	writeFile(t, dir, "split", "memory", "450 600\n")
	writeFile(t, dir, "split", "memory.procs", "registry 300\naggregator 150\nauthn 0.2\n")
	writeFile(t, dir, "kube", "ready", "4.2\n")
	writeFile(t, dir, "split", "ready", "1.3\n")
	writeFile(t, dir, "split", "list-crowded.1.json", `{"op":"list","total":100,"requests_per_second":300,"p99_ms":90,"errors":{}}`)
	writeFile(t, dir, "split", "watch.1.json",
		`{"op":"watch","total":200,"errors":{},"watch":{"watchers":1000,"updates":200,"events_expected":200000,"events_delivered":200000,"p99_ms":15300}}`)

	var out, errs bytes.Buffer
	if code := run([]string{"--dir", dir, "--stacks", "kube,split", "--ratios", "split/kube"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, want := range []string{
		"| op | kube req/s | split req/s | split ÷ kube | p99 ms kube / split |",
		"| get | 1,250 (1,000–1,500) | 2,500 (2,000–3,000) | 2.00× | 25 / 11 |",
		"| list-crowded |  | 300 |  | – / 90 |",
		"| events delivered |  | 200,000 of 200,000 (1000 × 200) |",
		"| delivery p99 |  | 15.3 s |",
		"| resident MB after the runs | 900 | 450 (registry 300, aggregator 150) | 0.50× |",
		"| peak resident MB | 1,200 | 600 | 0.50× |",
		"| launch to ready, s | 4.2 | 1.3 | 0.31× |",
		// kube: 12 s over 20,000 requests; split: 12 s over 40,000.
		"| get | 0.60 (kube-apiserver 0.50, etcd 0.10) | 0.30 (registry 0.20, aggregator 0.10) | 0.50× |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "| list |") {
		t.Errorf("an operation nobody ran has a row:\n%s", out.String())
	}

	// Nothing measured, nothing shown: no watch table, no memory rows.
	writeRun(t, dir, "bare", 1, 100, 10, 5, "")
	out.Reset()
	if code := run([]string{"--dir", dir, "--stacks", "bare"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, unwanted := range []string{"Watch", "resident", "launch"} {
		if strings.Contains(out.String(), unwanted) {
			t.Errorf("%q shown for a stack without it:\n%s", unwanted, out.String())
		}
	}
}

// Bad flags and files that are not what bench.sh writes are errors, named.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "kube", "get.1.json", `{"op":"get"}`)
	writeFile(t, dir, "broken", "get.1.json", `{"op":`)
	writeFile(t, dir, "badcpu", "get.1.json", `{"op":"get"}`)
	writeFile(t, dir, "badcpu", "get.1.cpu", "registry three\n")
	writeFile(t, dir, "badmem", "memory", "12\n")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--stacks", "kube"}, 2, "--dir and --stacks are required"},
		{[]string{"--dir", dir, "--stacks", "kube", "--ratios", "kube/split"}, 2, `ratio "kube/split"`},
		{[]string{"--dir", dir, "--stacks", "kube", "--ratios", "kube"}, 2, `ratio "kube"`},
		{[]string{"--dir", dir, "--stacks", "broken"}, 1, "not a load report"},
		{[]string{"--dir", dir, "--stacks", "badcpu"}, 1, `want "<process> <number>"`},
		{[]string{"--dir", dir, "--stacks", "badmem"}, 1, "want 2 numbers"},
	} {
		var out, errs bytes.Buffer
		if code := run(c.args, &out, &errs); code != c.code || !strings.Contains(errs.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want %d, %q", c.args, code, errs.String(), c.code, c.want)
		}
	}
}

func TestCount(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 1234567.4: "1,234,567", -1500: "-1,500"} {
		if got := count(v); got != want {
			t.Errorf("count(%v) = %q, want %q", v, got, want)
		}
	}
}
