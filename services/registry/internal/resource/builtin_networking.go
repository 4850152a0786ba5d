package resource

import (
	"k8s.io/kubernetes/pkg/registry/networking/ingress"
	"k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	"k8s.io/kubernetes/pkg/registry/networking/ipaddress"
	"k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
	"k8s.io/kubernetes/pkg/registry/networking/servicecidr"
)

// networking is networking.k8s.io/v1. IPAddresses are named by their
// address; those holding Services' cluster IPs are written by the
// serviceip allocator.
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
		kube(&Info{Group: g, Version: "v1", Resource: "ipaddresses", Kind: "IPAddress", Singular: "ipaddress", ShortNames: []string{"ip"}},
			ipaddress.Strategy, nil),
	}
}
