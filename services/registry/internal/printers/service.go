package printers

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
)

var serviceSpecDoc = corev1.ServiceSpec{}.SwaggerDoc()

// Service is the table of core/v1 services: NAME TYPE CLUSTER-IP
// EXTERNAL-IP PORT(S) AGE, and with -o wide SELECTOR.
var Service = []Column{
	nameColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Type", Type: "string", Description: serviceSpecDoc["type"]},
		Cell: strCell("spec", "type")},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Cluster-IP", Type: "string", Description: serviceSpecDoc["clusterIP"]},
		Cell: serviceClusterIP},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "External-IP", Type: "string", Description: serviceSpecDoc["externalIPs"]},
		Cell: serviceExternalIP},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Port(s)", Type: "string", Description: serviceSpecDoc["ports"]},
		Cell: servicePorts},
	ageColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Selector", Type: "string", Priority: 1, Description: serviceSpecDoc["selector"]},
		Cell: func(u *unstructured.Unstructured) any {
			return labels.FormatLabels(stringMap(u.Object, "spec", "selector"))
		}},
}

// serviceClusterIP is the first cluster IP ("None" for a headless service).
// Kube reads spec.clusterIPs, which its conversion fills from the older
// spec.clusterIP when only that is set.
func serviceClusterIP(u *unstructured.Unstructured) any {
	if ips := strs(u.Object, "spec", "clusterIPs"); len(ips) > 0 {
		return ips[0]
	}
	return orNone(str(u.Object, "spec", "clusterIP"))
}

// serviceExternalIP is where the service is reachable from outside, which
// depends on its type: the external IPs, the load balancer's addresses
// ("<pending>" until it has some), or the external name.
func serviceExternalIP(u *unstructured.Unstructured) any {
	external := strs(u.Object, "spec", "externalIPs")
	switch str(u.Object, "spec", "type") {
	case "ClusterIP", "NodePort":
		return orNone(strings.Join(external, ","))
	case "LoadBalancer":
		addrs := append(loadBalancerAddresses(u.Object), external...)
		if len(addrs) == 0 {
			return "<pending>"
		}
		return strings.Join(addrs, ",")
	case "ExternalName":
		return str(u.Object, "spec", "externalName")
	}
	return "<unknown>"
}

// loadBalancerAddresses are the load balancer ingress IPs (or hostnames
// where there is no IP), sorted and without repeats. The server never
// clips them: the 16-character cut kubectl users may know applies only to
// non-wide output printed client side.
func loadBalancerAddresses(svc map[string]any) []string {
	seen := map[string]bool{}
	var addrs []string
	for _, ing := range objects(svc, "status", "loadBalancer", "ingress") {
		a := str(ing, "ip")
		if a == "" {
			a = str(ing, "hostname")
		}
		if a != "" && !seen[a] {
			seen[a] = true
			addrs = append(addrs, a)
		}
	}
	sort.Strings(addrs)
	return addrs
}

// servicePorts lists the ports as "80/TCP" or, with a node port,
// "80:30080/TCP".
func servicePorts(u *unstructured.Unstructured) any {
	var pieces []string
	for _, p := range objects(u.Object, "spec", "ports") {
		protocol := str(p, "protocol")
		if protocol == "" {
			protocol = "TCP" // the API default
		}
		if nodePort := integer(p, "nodePort"); nodePort > 0 {
			pieces = append(pieces, fmt.Sprintf("%d:%d/%s", integer(p, "port"), nodePort, protocol))
		} else {
			pieces = append(pieces, fmt.Sprintf("%d/%s", integer(p, "port"), protocol))
		}
	}
	return orNone(strings.Join(pieces, ","))
}
