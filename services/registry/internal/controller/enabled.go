package controller

import (
	"fmt"
	"slices"
	"strings"
)

// enabled picks the runners a --controllers list asks for, in kube's
// syntax: "*" turns on every controller, "name" one, "-name" turns one
// off (which wins); no list at all means "*". An unknown name is an error,
// so a typo does not silently leave a controller running twice.
func enabled(list []string) ([]runner, error) {
	if len(list) == 0 {
		list = []string{"*"}
	}
	all, on, off := false, map[string]bool{}, map[string]bool{}
	for _, item := range list {
		item = strings.TrimSpace(item)
		name, disable := strings.CutPrefix(item, "-")
		if name == "*" && !disable {
			all = true
			continue
		}
		r, ok := runnerNamed(name)
		if !ok {
			return nil, fmt.Errorf("controller: unknown controller %q in --controllers (known: %s)", item, strings.Join(knownNames(), ", "))
		}
		if disable {
			off[r.name] = true
		} else {
			on[r.name] = true
		}
	}
	var out []runner
	for _, r := range runners {
		if (all || on[r.name]) && !off[r.name] {
			out = append(out, r)
		}
	}
	return out, nil
}

func runnerNamed(name string) (runner, bool) {
	for _, r := range runners {
		if slices.Contains(r.names, name) {
			return r, true
		}
	}
	return runner{}, false
}

func knownNames() []string {
	var names []string
	for _, r := range runners {
		names = append(names, r.names[0])
	}
	return names
}

// CheckNames reports a --controllers list naming a controller there is
// not, so a bad flag stops the start instead of a controller goroutine.
func CheckNames(list []string) error {
	_, err := enabled(list)
	return err
}
