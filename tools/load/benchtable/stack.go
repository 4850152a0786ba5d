package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/kubesplit/kubesplit/tools/load/internal/report"
)

// Run is one load-tool run against a stack.
type Run struct {
	Result report.Result
	// CPU is the seconds each of the stack's processes spent during it.
	CPU map[string]float64
}

// Stack is everything measured on one stack.
type Stack struct {
	Name string
	// Runs are by row (the operation, or what the file name says), one
	// per round.
	Runs map[string][]Run
	// RSS and Peak are resident megabytes after every run, summed over
	// the stack's processes; 0 when not measured. RSSByProc is RSS by
	// process, when known.
	RSS, Peak float64
	RSSByProc map[string]float64
	// Ready is seconds from launch to ready; 0 when not measured.
	Ready float64
}

// ReadStack reads the folder dir/name.
func ReadStack(dir, name string) (*Stack, error) {
	s := &Stack{Name: name, Runs: map[string][]Run{}}
	folder := filepath.Join(dir, name)
	files, err := filepath.Glob(filepath.Join(folder, "*.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	for _, f := range files {
		run, err := readRun(f)
		if err != nil {
			return nil, err
		}
		// The file names the row: list-crowded.1.json is a list run
		// measured apart from the plain ones.
		row, _, _ := strings.Cut(filepath.Base(f), ".")
		s.Runs[row] = append(s.Runs[row], run)
	}
	if v, err := numbers(filepath.Join(folder, "memory"), 2); err != nil {
		return nil, err
	} else if v != nil {
		s.RSS, s.Peak = v[0], v[1]
	}
	if s.RSSByProc, err = readByProcess(filepath.Join(folder, "memory.procs")); err != nil {
		return nil, err
	}
	if v, err := numbers(filepath.Join(folder, "ready"), 1); err != nil {
		return nil, err
	} else if v != nil {
		s.Ready = v[0]
	}
	return s, nil
}

// readRun reads one run's report and, beside it, its CPU figures.
func readRun(path string) (Run, error) {
	var run Run
	b, err := os.ReadFile(path)
	if err != nil {
		return run, err
	}
	if err := json.Unmarshal(b, &run.Result); err != nil || run.Result.Op == "" {
		return run, fmt.Errorf("%s: not a load report (%v)", path, err)
	}
	run.CPU, err = readByProcess(strings.TrimSuffix(path, ".json") + ".cpu")
	return run, err
}

// readByProcess reads "<process> <number>" lines (CPU seconds, resident
// MB); a missing file is no figures.
func readByProcess(path string) (map[string]float64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if len(f) != 2 || err != nil {
			return nil, fmt.Errorf("%s: want \"<process> <number>\", got %q", path, line)
		}
		out[f[0]] += v
	}
	return out, nil
}

// numbers reads want numbers separated by spaces; nil when the file is
// missing.
func numbers(path string, want int) ([]float64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(b))
	if len(f) != want {
		return nil, fmt.Errorf("%s: want %d numbers, got %q", path, want, b)
	}
	out := make([]float64, want)
	for i, s := range f {
		if out[i], err = strconv.ParseFloat(s, 64); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
	}
	return out, nil
}
