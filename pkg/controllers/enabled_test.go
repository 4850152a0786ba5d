package controllers

import (
	"slices"
	"testing"
)

// kube's syntax: * all, a name one, -name not that one (winning), an
// alias as good as the name, nothing at all as *, an unknown name an error.
func TestEnabled(t *testing.T) {
	known := [][]string{{"namespace-controller", "namespace"}, {"resourcequota-controller"}}
	for _, c := range []struct {
		list []string
		want []bool
	}{
		{nil, []bool{true, true}},
		{[]string{"*"}, []bool{true, true}},
		{[]string{"*", "-resourcequota-controller"}, []bool{true, false}},
		{[]string{"namespace"}, []bool{true, false}},
		{[]string{" namespace-controller", "-namespace"}, []bool{false, false}},
	} {
		got, err := Enabled(c.list, known)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, %v; want %v", c.list, got, err, c.want)
		}
	}
	if _, err := Enabled([]string{"*", "-nope"}, known); err == nil {
		t.Error("an unknown controller was accepted")
	}
}
