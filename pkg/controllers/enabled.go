// Package controllers reads a --controllers list in kube-controller-
// manager's syntax, which the services that run controllers of their own
// take, so that the ones a kube-controller-manager beside them runs can
// be left out by kube's names.
package controllers

import (
	"fmt"
	"slices"
	"strings"
)

// Enabled says which of the known controllers list turns on, in kube's
// syntax: "*" turns on every controller, "name" one, "-name" turns one off
// (which wins); no list at all means "*". Each known controller is the
// names it answers to, kube's first. An unknown name is an error, so a
// typo does not silently leave a controller running twice.
func Enabled(list []string, known [][]string) ([]bool, error) {
	if len(list) == 0 {
		list = []string{"*"}
	}
	all := false
	on, off := make([]bool, len(known)), make([]bool, len(known))
	for _, item := range list {
		item = strings.TrimSpace(item)
		name, disable := strings.CutPrefix(item, "-")
		if name == "*" && !disable {
			all = true
			continue
		}
		i := slices.IndexFunc(known, func(names []string) bool { return slices.Contains(names, name) })
		if i < 0 {
			return nil, fmt.Errorf("unknown controller %q in --controllers (known: %s)", item, strings.Join(firsts(known), ", "))
		}
		if disable {
			off[i] = true
		} else {
			on[i] = true
		}
	}
	for i := range on {
		on[i] = (all || on[i]) && !off[i]
	}
	return on, nil
}

func firsts(known [][]string) []string {
	var names []string
	for _, n := range known {
		names = append(names, n[0])
	}
	return names
}
