package printers

// Default is the table for resources without their own columns: NAME and
// CREATED AT, as kube-apiserver's default table convertor prints them. Kube
// itself serves Roles, ClusterRoles and LimitRanges this way. (Custom
// resources get NAME plus their CRD's additionalPrinterColumns, which kube
// defaults to a single AGE column.)
var Default = []Column{
	nameColumn(),
	createdAtColumn(),
}
