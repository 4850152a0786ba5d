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

// One list for two services: each reads the part naming its own
// controllers as kube reads the whole list, so a list that names only the
// other service's controllers turns all of its own off, not on.
func TestShare(t *testing.T) {
	registry := [][]string{{"namespace-controller", "namespace"}, {"garbage-collector-controller"}}
	admission := [][]string{{"resourcequota-controller"}}
	for _, c := range []struct {
		list            []string
		registry, quota []bool
	}{
		{nil, []bool{true, true}, []bool{true}},
		{[]string{"*", "-resourcequota-controller"}, []bool{true, true}, []bool{false}},
		{[]string{"*", "-namespace"}, []bool{false, true}, []bool{true}},
		{[]string{"namespace"}, []bool{true, false}, []bool{false}},
		{[]string{"resourcequota-controller"}, []bool{false, false}, []bool{true}},
	} {
		shares, err := Share(c.list, registry, admission)
		if err != nil {
			t.Fatalf("%q: %v", c.list, err)
		}
		reg, err1 := Enabled(shares[0], registry)
		quota, err2 := Enabled(shares[1], admission)
		if err1 != nil || err2 != nil || !slices.Equal(reg, c.registry) || !slices.Equal(quota, c.quota) {
			t.Errorf("%q: registry %v (%v), admission %v (%v); want %v, %v", c.list, reg, err1, quota, err2, c.registry, c.quota)
		}
	}
	if _, err := Share([]string{"*", "-nope"}, registry, admission); err == nil {
		t.Error("a name neither service knows was accepted")
	}
}
