package printers

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// APIService is the table of apiregistration.k8s.io/v1 API services, as
// kube-aggregator prints them: NAME SERVICE AVAILABLE AGE.
var APIService = []Column{
	nameColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Service", Type: "string",
		Description: "The reference to the service that hosts this API endpoint."},
		Cell: apiServiceBackend},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Available", Type: "string",
		Description: "Whether this service is available."},
		Cell: apiServiceAvailable},
	ageColumn(),
}

// apiServiceBackend is "namespace/name" of the backing service, or "Local"
// for a group the server serves itself.
func apiServiceBackend(u *unstructured.Unstructured) any {
	svc := object(u.Object, "spec", "service")
	if svc == nil {
		return "Local"
	}
	return str(svc, "namespace") + "/" + str(svc, "name")
}

// apiServiceAvailable is the Available condition's status, with its reason
// when it is not True ("False (MissingEndpoints)"); "Unknown" without one.
func apiServiceAvailable(u *unstructured.Unstructured) any {
	c := condition(u.Object, "Available")
	if c == nil {
		return "Unknown"
	}
	status, reason := str(c, "status"), str(c, "reason")
	if status == "True" || reason == "" {
		return status
	}
	return fmt.Sprintf("%s (%s)", status, reason)
}
