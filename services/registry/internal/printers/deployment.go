package printers

import (
	"fmt"
	"strings"

	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Kube's printer still takes these descriptions from extensions/v1beta1;
// using the same keeps the column definitions identical.
var (
	deploymentSpecDoc   = extensionsv1beta1.DeploymentSpec{}.SwaggerDoc()
	deploymentStatusDoc = extensionsv1beta1.DeploymentStatus{}.SwaggerDoc()
)

// Deployment is the table of apps/v1 deployments: NAME READY UP-TO-DATE
// AVAILABLE AGE, and with -o wide CONTAINERS IMAGES SELECTOR.
var Deployment = []Column{
	nameColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Ready", Type: "string", Description: "Number of the pod with ready state"},
		Cell: func(u *unstructured.Unstructured) any {
			return fmt.Sprintf("%d/%d", integer(u.Object, "status", "readyReplicas"), integer(u.Object, "spec", "replicas"))
		}},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Up-to-date", Type: "string", Description: deploymentStatusDoc["updatedReplicas"]},
		Cell: func(u *unstructured.Unstructured) any { return integer(u.Object, "status", "updatedReplicas") }},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Available", Type: "string", Description: deploymentStatusDoc["availableReplicas"]},
		Cell: func(u *unstructured.Unstructured) any { return integer(u.Object, "status", "availableReplicas") }},
	ageColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Containers", Type: "string", Priority: 1, Description: "Names of each container in the template."},
		Cell: func(u *unstructured.Unstructured) any { return templateContainers(u.Object, "name") }},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Images", Type: "string", Priority: 1, Description: "Images referenced by each container in the template."},
		Cell: func(u *unstructured.Unstructured) any { return templateContainers(u.Object, "image") }},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Selector", Type: "string", Priority: 1, Description: deploymentSpecDoc["selector"]},
		Cell: func(u *unstructured.Unstructured) any { return labelSelector(object(u.Object, "spec", "selector")) }},
}

// templateContainers joins one field (name or image) of each container in
// the pod template with commas.
func templateContainers(obj map[string]any, key string) string {
	containers := objects(obj, "spec", "template", "spec", "containers")
	values := make([]string, len(containers))
	for i, c := range containers {
		values[i] = str(c, key)
	}
	return strings.Join(values, ",")
}

// labelSelector prints a metav1.LabelSelector in selector syntax
// ("app=web,tier in (a,b)"); "<invalid>" when it cannot be read.
func labelSelector(sel map[string]any) string {
	var ls *metav1.LabelSelector
	if sel != nil {
		ls = &metav1.LabelSelector{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(sel, ls); err != nil {
			return "<invalid>"
		}
	}
	s, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return "<invalid>"
	}
	return s.String()
}
