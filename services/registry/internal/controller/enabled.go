package controller

import (
	"fmt"

	"github.com/kubesplit/kubesplit/pkg/controllers"
)

// enabled picks the runners a --controllers list asks for, in kube's
// syntax (see pkg/controllers).
func enabled(list []string) ([]runner, error) {
	on, err := controllers.Enabled(list, Known())
	if err != nil {
		return nil, fmt.Errorf("controller: %w", err)
	}
	var out []runner
	for i, r := range runners {
		if on[i] {
			out = append(out, r)
		}
	}
	return out, nil
}

// CheckNames reports a --controllers list naming a controller there is
// not, so a bad flag stops the start instead of a controller goroutine.
func CheckNames(list []string) error {
	_, err := enabled(list)
	return err
}

// Known lists the names --controllers knows each controller by, kube's
// first.
func Known() [][]string {
	known := make([][]string, len(runners))
	for i, r := range runners {
		known[i] = r.names
	}
	return known
}
