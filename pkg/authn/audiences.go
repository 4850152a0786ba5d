package authn

// intersect returns the members of want that are also in got, in want's
// order; audiences are compared exactly, as kube does.
func intersect(want, got []string) []string {
	var out []string
	for _, w := range want {
		for _, g := range got {
			if w == g {
				out = append(out, w)
				break
			}
		}
	}
	return out
}
