package validation

import (
	"cmp"
	"maps"
	"slices"
)

// sortedKeys returns the keys of m in order, so that errors about map
// entries come out the same way every time.
func sortedKeys[K cmp.Ordered, V any](m map[K]V) []K {
	return slices.Sorted(maps.Keys(m))
}
