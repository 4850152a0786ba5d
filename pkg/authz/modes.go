package authz

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// CheckModes checks an --authorization-mode list as kube-apiserver does:
// at least one mode, each one of known's keys, none twice. The error names
// the known modes.
func CheckModes[V any](modes []string, known map[string]V) error {
	if len(modes) == 0 {
		return fmt.Errorf("no authorization mode")
	}
	for i, m := range modes {
		if _, ok := known[m]; !ok {
			return fmt.Errorf("unknown authorization mode %q (known: %s)", m, strings.Join(slices.Sorted(maps.Keys(known)), ","))
		}
		if slices.Contains(modes[:i], m) {
			return fmt.Errorf("authorization mode %q given twice", m)
		}
	}
	return nil
}
