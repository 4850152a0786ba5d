package controller

import (
	"reflect"
	"testing"
)

func TestControllersFlagIsKubes(t *testing.T) {
	names := func(list ...string) []string {
		t.Helper()
		rs, err := enabled(list)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rs {
			out = append(out, r.name)
		}
		return out
	}
	all := []string{"namespace", "serviceaccount", "customresourcedefinition", "garbagecollector", "kubernetesservice", "policystatus", "rootcacertpublisher"}
	for _, c := range []struct {
		list []string
		want []string
	}{
		{nil, all},
		{[]string{"*"}, all},
		{[]string{"*", "-namespace-controller", "-garbage-collector-controller", "-serviceaccount-controller",
			"-root-ca-certificate-publisher-controller", "-validatingadmissionpolicy-status-controller"}, []string{"customresourcedefinition", "kubernetesservice"}},
		{[]string{"*", "-garbagecollector"}, []string{"namespace", "serviceaccount", "customresourcedefinition", "kubernetesservice", "policystatus", "rootcacertpublisher"}},
		{[]string{"root-ca-cert-publisher", "kubernetes-service-controller"}, []string{"kubernetesservice", "rootcacertpublisher"}},
		{[]string{"namespace-controller"}, []string{"namespace"}},
		{[]string{"namespace", "-namespace"}, nil},
	} {
		if got := names(c.list...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("--controllers=%v runs %v, want %v", c.list, got, c.want)
		}
	}
	if _, err := enabled([]string{"*", "-nope"}); err == nil {
		t.Error("an unknown controller was accepted")
	}
}
