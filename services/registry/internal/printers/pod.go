package printers

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Pod is the table of core/v1 pods: NAME READY STATUS RESTARTS AGE, and
// with -o wide IP NODE NOMINATED NODE READINESS GATES.
var Pod = []Column{
	nameColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Ready", Type: "string",
		Description: "The aggregate readiness state of this pod for accepting traffic."},
		Cell: func(u *unstructured.Unstructured) any {
			s := summarizePod(u.Object)
			return fmt.Sprintf("%d/%d", s.ready, s.total)
		}},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Status", Type: "string",
		Description: "The aggregate status of the containers in this pod."},
		Cell: func(u *unstructured.Unstructured) any { return summarizePod(u.Object).reason }},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Restarts", Type: "string",
		Description: "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."},
		Cell: func(u *unstructured.Unstructured) any { return summarizePod(u.Object).restarts.String() }},
	ageColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "IP", Type: "string", Priority: 1,
		Description: corev1.PodStatus{}.SwaggerDoc()["podIP"]},
		Cell: podIP},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Node", Type: "string", Priority: 1,
		Description: corev1.PodSpec{}.SwaggerDoc()["nodeName"]},
		Cell: func(u *unstructured.Unstructured) any { return orNone(str(u.Object, "spec", "nodeName")) }},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Nominated Node", Type: "string", Priority: 1,
		Description: corev1.PodStatus{}.SwaggerDoc()["nominatedNodeName"]},
		Cell: func(u *unstructured.Unstructured) any { return orNone(str(u.Object, "status", "nominatedNodeName")) }},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Readiness Gates", Type: "string", Priority: 1,
		Description: corev1.PodSpec{}.SwaggerDoc()["readinessGates"]},
		Cell: podReadinessGates},
}

// podIP is the pod's first IP. Kube reads status.podIPs, which its internal
// conversion fills from the older status.podIP when only that is set.
func podIP(u *unstructured.Unstructured) any {
	for _, ip := range objects(u.Object, "status", "podIPs") {
		return orNone(str(ip, "ip"))
	}
	return orNone(str(u.Object, "status", "podIP"))
}

// podReadinessGates counts how many of the pod's readiness gates have their
// condition True, as "passed/total".
func podReadinessGates(u *unstructured.Unstructured) any {
	gates := objects(u.Object, "spec", "readinessGates")
	if len(gates) == 0 {
		return "<none>"
	}
	passed := 0
	for _, g := range gates {
		if conditionTrue(u.Object, str(g, "conditionType")) {
			passed++
		}
	}
	return fmt.Sprintf("%d/%d", passed, len(gates))
}
