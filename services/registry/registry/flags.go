package registry

import (
	"github.com/spf13/pflag"

	"github.com/kubesplit/kubesplit/services/registry/internal/kubelet"
	"github.com/kubesplit/kubesplit/services/registry/internal/serviceip"
)

// AddKubeFlags binds to cfg the flags the registry takes as kube-apiserver
// and kube-controller-manager take them (Service ranges, kubelet
// connections, controllers, the root CA), so that the registry's command
// and the fused binary offer them alike.
func AddKubeFlags(fs *pflag.FlagSet, cfg *Config) {
	fs.StringVar(&cfg.ServiceClusterIPRange, "service-cluster-ip-range", serviceip.DefaultServiceClusterIPRange,
		"CIDR Services' cluster IPs are allocated from, or an IPv4 and an IPv6 one separated by a comma for dual-stack "+
			"(the default ServiceCIDR \"kubernetes\"); its first address is the kubernetes Service's")
	fs.StringVar(&cfg.ServiceNodePortRange, "service-node-port-range", serviceip.DefaultServiceNodePortRange,
		"port range NodePort and LoadBalancer Services' node ports are allocated from")
	fs.StringSliceVar(&cfg.Kubelet.PreferredAddressTypes, "kubelet-preferred-address-types", kubelet.DefaultPreferredAddressTypes,
		"List of the preferred NodeAddressTypes to use for kubelet connections.")
	fs.StringVar(&cfg.Kubelet.CertFile, "kubelet-client-certificate", "", "Path to a client cert file for TLS.")
	fs.StringVar(&cfg.Kubelet.KeyFile, "kubelet-client-key", "", "Path to a client key file for TLS.")
	fs.StringVar(&cfg.Kubelet.CAFile, "kubelet-certificate-authority", "",
		"Path to a cert file for the certificate authority; without it kubelets' serving certificates are not verified, as in kube.")
	fs.BoolVar(&cfg.AllowPrivileged, "allow-privileged", false, "If true, allow privileged containers. [default=false]")
	fs.BoolVar(&cfg.DisableControllers, "disable-controllers", false, "do not run the namespace, service account and garbage collection controllers")
	fs.StringSliceVar(&cfg.Controllers, "controllers", []string{"*"},
		"the housekeeping controllers to run, in kube-controller-manager's syntax: '*' all, 'name' one, '-name' not that one "+
			"(namespace-controller, serviceaccount-controller, garbage-collector-controller, customresourcedefinition, "+
			"kubernetes-service-controller, root-ca-certificate-publisher-controller, validatingadmissionpolicy-status-controller); "+
			"beside a kube-controller-manager, leave out what it runs")
	fs.StringVar(&cfg.RootCAFile, "root-ca-file", "",
		"CA bundle that verifies the API server (the aggregator's serving certificate), published in every namespace "+
			"as the ConfigMap kube-root-ca.crt (root-ca-certificate-publisher-controller); empty publishes none")
}
