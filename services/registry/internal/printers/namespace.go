package printers

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Namespace is the table of core/v1 namespaces: NAME STATUS AGE.
var Namespace = []Column{
	nameColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Status", Type: "string", Description: "The status of the namespace"},
		Cell: strCell("status", "phase")},
	ageColumn(),
}
