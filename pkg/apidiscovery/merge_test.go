package apidiscovery

import (
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func group(name string, versions ...string) apidiscoveryv2.APIGroupDiscovery {
	g := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, v := range versions {
		g.Versions = append(g.Versions, apidiscoveryv2.APIVersionDiscovery{Version: v, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent})
	}
	return g
}

func kubePriority(gv schema.GroupVersion) Priority {
	if p, ok := BuiltinPriority(gv); ok {
		return p
	}
	return CustomResourcePriority
}

func TestMergeOrdersAsKube(t *testing.T) {
	registry := []apidiscoveryv2.APIGroupDiscovery{
		group("stable.example.com", "v1beta1", "v1", "v2alpha1"),
		group("apps", "v1"), group("", "v1"), group("autoscaling", "v1", "v2"),
		group("a.example.com", "v1"),
	}
	authn := []apidiscoveryv2.APIGroupDiscovery{group("authentication.k8s.io", "v1")}
	// A duplicate group version: the first document's is kept.
	stale := group("apps", "v1")
	stale.Versions[0].Freshness = apidiscoveryv2.DiscoveryFreshnessStale
	got := Merge(kubePriority, registry, authn, []apidiscoveryv2.APIGroupDiscovery{stale})
	var names []string
	for _, g := range got {
		var vs []string
		for _, v := range g.Versions {
			vs = append(vs, v.Version)
		}
		names = append(names, g.Name+"="+join(vs))
	}
	want := []string{"=v1", "apps=v1", "authentication.k8s.io=v1", "autoscaling=v2,v1",
		"a.example.com=v1", "stable.example.com=v1,v1beta1,v2alpha1"}
	if join(names) != join(want) {
		t.Fatalf("merged order:\n got %v\nwant %v", names, want)
	}
	if got[1].Versions[0].Freshness != apidiscoveryv2.DiscoveryFreshnessCurrent {
		t.Fatal("a later document's duplicate group version replaced the first's")
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}
