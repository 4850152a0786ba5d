package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// requestOps are the throughput operations, in the order they are shown;
// other rows (runs measured apart) follow in name order.
var requestOps = []string{"get", "list", "create", "update", "mixed"}

// rows are requestOps, then the other rows any stack has, but watch.
func rows(stacks []*Stack) []string {
	var extra []string
	for _, s := range stacks {
		for r := range s.Runs {
			if r != "watch" && !slices.Contains(requestOps, r) && !slices.Contains(extra, r) {
				extra = append(extra, r)
			}
		}
	}
	slices.Sort(extra)
	return append(slices.Clone(requestOps), extra...)
}

// Write prints the tables: throughput and p99, watch delivery, memory and
// start, and CPU per request.
func Write(w io.Writer, stacks []*Stack, ratios []Ratio) {
	writeThroughput(w, stacks, ratios)
	writeWatch(w, stacks)
	writeFootprint(w, stacks, ratios)
	writeCPU(w, stacks, ratios)
}

func writeThroughput(w io.Writer, stacks []*Stack, ratios []Ratio) {
	head := []string{"op"}
	for _, s := range stacks {
		head = append(head, s.Name+" req/s")
	}
	head = append(head, ratioNames(stacks, ratios)...)
	head = append(head, "p99 ms "+strings.Join(names(stacks), " / "))
	t := newTable(head...)
	for _, op := range rows(stacks) {
		row := []string{op}
		rps := make([]float64, len(stacks))
		p99 := make([]string, len(stacks))
		for i, s := range stacks {
			runs := s.Runs[op]
			rps[i] = median(runs, func(r Run) float64 { return r.Result.RequestsPerSecond })
			p99[i] = millis(median(runs, func(r Run) float64 { return r.Result.P99 }))
			row = append(row, spread(runs, func(r Run) float64 { return r.Result.RequestsPerSecond }))
		}
		if !slices.ContainsFunc(rps, func(v float64) bool { return v > 0 }) {
			continue
		}
		for _, r := range ratios {
			row = append(row, ratio(rps[r.A], rps[r.B]))
		}
		t.add(append(row, strings.Join(p99, " / "))...)
	}
	t.write(w, "Throughput (median of the rounds, lowest–highest in brackets) and p99 latency:")
}

func writeWatch(w io.Writer, stacks []*Stack) {
	t := newTable(append([]string{"watch"}, names(stacks)...)...)
	delivered, p99 := []string{"events delivered"}, []string{"delivery p99"}
	any := false
	for _, s := range stacks {
		runs := s.Runs["watch"]
		if len(runs) == 0 || runs[0].Result.Watch == nil {
			delivered, p99 = append(delivered, ""), append(p99, "")
			continue
		}
		any = true
		ws := runs[len(runs)-1].Result.Watch
		delivered = append(delivered, fmt.Sprintf("%s of %s (%d × %d)", count(float64(ws.Delivered)), count(float64(ws.Expected)), ws.Watchers, ws.Updates))
		p99 = append(p99, latency(ws.P99))
	}
	if !any {
		return
	}
	t.add(delivered...)
	t.add(p99...)
	t.write(w, "Watch (the last round):")
}

func writeFootprint(w io.Writer, stacks []*Stack, ratios []Ratio) {
	t := newTable(append(append([]string{""}, names(stacks)...), ratioNames(stacks, ratios)...)...)
	seconds := func(v float64) string { return fmt.Sprintf("%.1f", v) }
	rows := []struct {
		name  string
		value func(*Stack) float64
		cell  func(*Stack) string
	}{
		{"resident MB after the runs", func(s *Stack) float64 { return s.RSS },
			func(s *Stack) string { return breakdown(s.RSS, s.RSSByProc, "%.0f", 0.5) }},
		{"peak resident MB", func(s *Stack) float64 { return s.Peak },
			func(s *Stack) string { return blankIfZero(s.Peak, count) }},
		{"launch to ready, s", func(s *Stack) float64 { return s.Ready },
			func(s *Stack) string { return blankIfZero(s.Ready, seconds) }},
	}
	for _, r := range rows {
		row := []string{r.name}
		measured := false
		for _, s := range stacks {
			row = append(row, r.cell(s))
			measured = measured || r.value(s) > 0
		}
		if !measured {
			continue
		}
		for _, q := range ratios {
			row = append(row, ratio(r.value(stacks[q.A]), r.value(stacks[q.B])))
		}
		t.add(row...)
	}
	t.write(w, "Memory (summed over each stack's processes, its etcd included; each process's share in brackets) and start:")
}

func writeCPU(w io.Writer, stacks []*Stack, ratios []Ratio) {
	t := newTable(append(append([]string{"op"}, names(stacks)...), ratioNames(stacks, ratios)...)...)
	for _, op := range rows(stacks) {
		row := []string{op}
		total := make([]float64, len(stacks))
		for i, s := range stacks {
			var byProc map[string]float64
			total[i], byProc = cpuPerRequest(s.Runs[op])
			row = append(row, cpuCell(total[i], byProc))
		}
		if !slices.ContainsFunc(total, func(v float64) bool { return v > 0 }) {
			continue
		}
		for _, r := range ratios {
			row = append(row, ratio(total[r.A], total[r.B]))
		}
		t.add(row...)
	}
	t.write(w, "CPU per request, ms, summed over each stack's processes (each process's share in brackets; the run's set-up and clean-up included):")
}

// cpuPerRequest is the CPU milliseconds per request over runs, in total and
// by process.
func cpuPerRequest(runs []Run) (float64, map[string]float64) {
	var requests float64
	byProc := map[string]float64{}
	for _, r := range runs {
		requests += float64(r.Result.Total)
		for p, sec := range r.CPU {
			byProc[p] += sec
		}
	}
	if requests == 0 || len(byProc) == 0 {
		return 0, nil
	}
	var total float64
	for p := range byProc {
		byProc[p] *= 1000 / requests
		total += byProc[p]
	}
	return total, byProc
}

// cpuCell is "1.30 (registry 0.52, aggregator 0.31, …)", biggest first,
// leaving out processes that spent next to nothing.
func cpuCell(total float64, byProc map[string]float64) string {
	return breakdown(total, byProc, "%.2f", 0.005)
}

// breakdown is total and each process's share in format, biggest first,
// leaving out those under least (what rounds to nothing says nothing).
func breakdown(total float64, byProc map[string]float64, format string, least float64) string {
	if total == 0 {
		return ""
	}
	procs := slices.SortedFunc(maps.Keys(byProc), func(a, b string) int {
		return cmp.Or(cmp.Compare(byProc[b], byProc[a]), strings.Compare(a, b))
	})
	var parts []string
	for _, p := range procs {
		if byProc[p] >= least {
			parts = append(parts, p+" "+fmt.Sprintf(format, byProc[p]))
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf(format, total)
	}
	return fmt.Sprintf(format+" (%s)", total, strings.Join(parts, ", "))
}

func names(stacks []*Stack) []string {
	out := make([]string, len(stacks))
	for i, s := range stacks {
		out[i] = s.Name
	}
	return out
}

func ratioNames(stacks []*Stack, ratios []Ratio) []string {
	out := make([]string, len(ratios))
	for i, r := range ratios {
		out[i] = stacks[r.A].Name + " ÷ " + stacks[r.B].Name
	}
	return out
}

// median of f over runs; 0 for none.
func median(runs []Run, f func(Run) float64) float64 {
	if len(runs) == 0 {
		return 0
	}
	v := values(runs, f)
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// spread is the median of f over runs, with its range when there are several.
func spread(runs []Run, f func(Run) float64) string {
	if len(runs) == 0 {
		return ""
	}
	m := count(median(runs, f))
	if len(runs) == 1 {
		return m
	}
	v := values(runs, f)
	return fmt.Sprintf("%s (%s–%s)", m, count(v[0]), count(v[len(v)-1]))
}

func values(runs []Run, f func(Run) float64) []float64 {
	v := make([]float64, len(runs))
	for i, r := range runs {
		v[i] = f(r)
	}
	slices.Sort(v)
	return v
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f×", a/b)
}

// count is v rounded, with thousands separated: 12,345.
func count(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// millis is a latency in ms: one decimal under 10 ms, whole above.
func millis(v float64) string {
	switch {
	case v == 0:
		return "–"
	case v < 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// latency is millis with its unit, in seconds from 10 s.
func latency(v float64) string {
	if v >= 10000 {
		return fmt.Sprintf("%.1f s", v/1000)
	}
	return millis(v) + " ms"
}

func blankIfZero(v float64, format func(float64) string) string {
	if v == 0 {
		return ""
	}
	return format(v)
}

// table is a Markdown table.
type table struct{ rows [][]string }

func newTable(head ...string) *table { return &table{rows: [][]string{head}} }

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write prints title and the table, or nothing when it has no rows.
func (t *table) write(w io.Writer, title string) {
	if len(t.rows) < 2 {
		return
	}
	fmt.Fprintf(w, "%s\n\n", title)
	for i, r := range t.rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		if i == 0 {
			fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(r)))
		}
	}
	fmt.Fprintln(w)
}
