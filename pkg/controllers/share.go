package controllers

import (
	"slices"
	"strings"
)

// Share hands one --controllers list, given to a process that runs
// several services' controllers (the fused binary), to each service: each
// gets the part naming controllers it knows, which it reads as kube would
// read the whole list. A name no service knows is an error.
func Share(list []string, services ...[][]string) ([][]string, error) {
	if _, err := Enabled(list, slices.Concat(services...)); err != nil {
		return nil, err
	}
	shares := make([][]string, len(services))
	for i, known := range services {
		shares[i] = share(list, known)
	}
	return shares, nil
}

// share is the part of list that known names. A list naming none of them
// and without "*" turns them all off, so it becomes one "-name": a list
// with no "*" and nothing turned on, which Enabled reads as none, where an
// empty one would read as all.
func share(list []string, known [][]string) []string {
	if len(list) == 0 || len(known) == 0 {
		return list
	}
	var out []string
	for _, item := range list {
		name, _ := strings.CutPrefix(strings.TrimSpace(item), "-")
		if name == "*" || slices.ContainsFunc(known, func(names []string) bool { return slices.Contains(names, name) }) {
			out = append(out, item)
		}
	}
	if len(out) == 0 {
		out = []string{"-" + known[0][0]}
	}
	return out
}
