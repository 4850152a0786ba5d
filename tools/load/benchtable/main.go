// Command benchtable prints what `make bench` measured as Markdown: per
// operation, each stack's throughput and p99 (medians over the rounds),
// the ratios asked for, the CPU a request cost each of a stack's
// processes, and each stack's resident memory and time to ready.
//
//	benchtable --dir .run/bench/results --stacks kube,split,fused --ratios split/kube,split/fused
//
// The directory holds one folder per stack, written by hack/bench.sh:
//
//	<row>.<round>.json the load tool's report (--output json) of one run;
//	                   the row is its operation, or another name for runs
//	                   measured apart (list-crowded)
//	<row>.<round>.cpu  "<process> <seconds>" lines: the CPU each process
//	                   of the stack spent during that run
//	memory             "<resident MB> <peak MB>" after every run
//	memory.procs       "<process> <resident MB>" lines, the same by process
//	ready              seconds from launch to ready
//
// A file that is missing leaves its cell empty.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchtable", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "the results directory (one folder per stack)")
	stacks := fs.String("stacks", "", "the stacks' folders, comma-separated, in column order")
	ratios := fs.String("ratios", "", "ratio columns, comma-separated a/b pairs of stacks")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	names := split(*stacks)
	pairs, err := parseRatios(*ratios, names)
	if *dir == "" || len(names) == 0 || err != nil {
		fmt.Fprintf(stderr, "benchtable: --dir and --stacks are required; %v\n", err)
		return 2
	}
	results := make([]*Stack, len(names))
	for i, n := range names {
		if results[i], err = ReadStack(*dir, n); err != nil {
			fmt.Fprintf(stderr, "benchtable: %v\n", err)
			return 1
		}
	}
	Write(stdout, results, pairs)
	return 0
}

// split is s's comma-separated fields, without empty ones.
func split(s string) []string {
	var out []string
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// Ratio is a column comparing stack A with stack B (indexes into the stacks).
type Ratio struct{ A, B int }

// parseRatios reads "a/b,c/d" against the stacks' names.
func parseRatios(s string, names []string) ([]Ratio, error) {
	index := func(n string) int {
		for i, m := range names {
			if m == n {
				return i
			}
		}
		return -1
	}
	var out []Ratio
	for _, f := range split(s) {
		a, b, ok := strings.Cut(f, "/")
		r := Ratio{index(a), index(b)}
		if !ok || r.A < 0 || r.B < 0 {
			return nil, fmt.Errorf("ratio %q: want a/b of stacks in --stacks", f)
		}
		out = append(out, r)
	}
	return out, nil
}
