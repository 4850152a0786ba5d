package printers

import (
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Lease is the table of coordination.k8s.io/v1 leases: NAME HOLDER AGE.
var Lease = []Column{
	nameColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Holder", Type: "string",
		Description: coordinationv1.LeaseSpec{}.SwaggerDoc()["holderIdentity"]},
		Cell: strCell("spec", "holderIdentity")},
	ageColumn(),
}
