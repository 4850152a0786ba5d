package printers

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// LimitRange is the table of core/v1 limit ranges. Kube has no printer for
// them and serves its default table, NAME CREATED AT.
var LimitRange = Default

// ResourceQuota is the table of core/v1 resource quotas: NAME REQUEST LIMIT
// AGE, each cell listing "resource: used/hard" from the quota's status.
var ResourceQuota = []Column{
	nameColumn(),
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Request", Type: "string",
		Description: "Request represents a minimum amount of cpu/memory that a container may consume."},
		Cell: func(u *unstructured.Unstructured) any { return quotaUsage(u.Object, false) }},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Limit", Type: "string",
		Description: "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node."},
		Cell: func(u *unstructured.Unstructured) any { return quotaUsage(u.Object, true) }},
	ageColumn(),
}

// quotaUsage lists "name: used/hard" for every resource in status.hard,
// sorted by name: those named limits.* for the LIMIT column, the rest
// (requests.*, pods, count/…) for REQUEST.
func quotaUsage(quota map[string]any, limits bool) string {
	hard := object(quota, "status", "hard")
	used := object(quota, "status", "used")
	names := make([]string, 0, len(hard))
	for name := range hard {
		if strings.HasPrefix(name, "limits.") == limits {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s: %s/%s", name, quantity(used[name]), quantity(hard[name]))
	}
	return strings.Join(parts, ", ")
}

// quantity prints a resource quantity in its canonical form ("1" for
// "1000m"), as kube does after decoding; a missing one is "0" and one that
// does not parse is shown as written.
func quantity(v any) string {
	if v == nil {
		return "0"
	}
	s := fmt.Sprint(v)
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return s
	}
	return q.String()
}
