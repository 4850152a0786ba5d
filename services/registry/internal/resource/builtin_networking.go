package resource

import (
	"k8s.io/kubernetes/pkg/registry/networking/ingress"
	"k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	"k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
	"k8s.io/kubernetes/pkg/registry/networking/servicecidr"
)

// networking is networking.k8s.io/v1. Kube also serves ipaddresses here,
// which are not yet: an IPAddress must be named by its IP address.
func networking() []*Info {
	const g = "networking.k8s.io"
	return []*Info{
		kube(&Info{Group: g, Version: "v1", Resource: "ingresses", Kind: "Ingress", Singular: "ingress", Namespaced: true,
			ShortNames: []string{"ing"}, StatusSubresource: true},
			ingress.Strategy, status(ingress.StatusStrategy)),
		kube(&Info{Group: g, Version: "v1", Resource: "ingressclasses", Kind: "IngressClass", Singular: "ingressclass"},
			ingressclass.Strategy, nil),
		kube(&Info{Group: g, Version: "v1", Resource: "networkpolicies", Kind: "NetworkPolicy", Singular: "networkpolicy", Namespaced: true,
			ShortNames: []string{"netpol"}},
			networkpolicy.Strategy, nil),
		kube(&Info{Group: g, Version: "v1", Resource: "servicecidrs", Kind: "ServiceCIDR", Singular: "servicecidr",
			StatusSubresource: true},
			servicecidr.Strategy, status(servicecidr.StatusStrategy)),
	}
}
