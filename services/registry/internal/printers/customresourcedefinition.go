package printers

import (
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// CustomResourceDefinition is the table of apiextensions.k8s.io/v1 CRDs, as
// apiextensions-apiserver v0.37 prints them: NAME SCOPE VERSIONS CREATED AT,
// and with -o wide GROUP KIND SHORTNAMES ESTABLISHED.
var CustomResourceDefinition = []Column{
	nameColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Scope", Type: "string", Description: "Cluster/Namespaced"},
		Cell: strCell("spec", "scope")},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Versions", Type: "string", Description: "Served versions"},
		Cell: crdVersions},
	createdAtColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Group", Type: "string", Priority: 1, Description: "API group"},
		Cell: strCell("spec", "group")},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Kind", Type: "string", Priority: 1, Description: "CustomResource kind"},
		Cell: strCell("spec", "names", "kind")},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "ShortNames", Type: "string", Priority: 1, Description: "Short names"},
		Cell: func(u *unstructured.Unstructured) any {
			return strings.Join(strs(u.Object, "spec", "names", "shortNames"), ",")
		}},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Established", Type: "boolean", Priority: 1, Description: "Established status"},
		Cell: crdEstablished},
}

// crdVersions lists the served versions, sorted, the storage version marked
// "v1(storage)".
func crdVersions(u *unstructured.Unstructured) any {
	var versions []string
	for _, v := range objects(u.Object, "spec", "versions") {
		if !boolean(v, "served") {
			continue
		}
		label := str(v, "name")
		if boolean(v, "storage") {
			label += "(storage)"
		}
		versions = append(versions, label)
	}
	sort.Strings(versions)
	return strings.Join(versions, ",")
}

// crdEstablished reports whether the CRD's Established condition is True,
// that is whether its resource is being served.
func crdEstablished(u *unstructured.Unstructured) any {
	return conditionTrue(u.Object, "Established")
}
