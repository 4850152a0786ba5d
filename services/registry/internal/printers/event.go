package printers

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var (
	eventDoc     = corev1.Event{}.SwaggerDoc()
	objectRefDoc = corev1.ObjectReference{}.SwaggerDoc()
)

// Event is the table of core/v1 events: LAST SEEN TYPE REASON OBJECT
// MESSAGE, and with -o wide SUBOBJECT SOURCE FIRST SEEN COUNT NAME. Unlike
// every other table its name is a wide column, and the last one: an
// event's generated name tells a reader nothing.
var Event = []Column{
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Last Seen", Type: "string", Description: eventDoc["lastTimestamp"]},
		Cell: func(u *unstructured.Unstructured) any { return eventLastSeen(u.Object) }},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Type", Type: "string", Description: eventDoc["type"]},
		Cell: strCell("type")},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Reason", Type: "string", Description: eventDoc["reason"]},
		Cell: strCell("reason")},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Object", Type: "string", Description: eventDoc["involvedObject"]},
		Cell: eventObject},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Subobject", Type: "string", Priority: 1, Description: objectRefDoc["fieldPath"]},
		Cell: strCell("involvedObject", "fieldPath")},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Source", Type: "string", Priority: 1, Description: eventDoc["source"]},
		Cell: eventSource},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Message", Type: "string", Description: eventDoc["message"]},
		Cell: func(u *unstructured.Unstructured) any { return strings.TrimSpace(str(u.Object, "message")) }},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "First Seen", Type: "string", Priority: 1, Description: eventDoc["firstTimestamp"]},
		Cell: func(u *unstructured.Unstructured) any { return eventFirstSeen(u.Object) }},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Count", Type: "string", Priority: 1, Description: eventDoc["count"]},
		Cell: eventCount},
	{TableColumnDefinition: metav1.TableColumnDefinition{Name: "Name", Type: "string", Priority: 1, Format: "name", Description: metaDoc["name"]},
		Cell: strCell("metadata", "name")},
}

// eventFirstSeen is the age of firstTimestamp, or of eventTime for events
// written through events.k8s.io, which sets only that.
func eventFirstSeen(ev map[string]any) string {
	if t := timestamp(ev, "firstTimestamp"); !t.IsZero() {
		return since(t)
	}
	return since(timestamp(ev, "eventTime"))
}

// eventLastSeen is the age of the series' last observation for an event
// series, else of lastTimestamp, else the first-seen age.
func eventLastSeen(ev map[string]any) string {
	if object(ev, "series") != nil {
		return since(timestamp(ev, "series", "lastObservedTime"))
	}
	if t := timestamp(ev, "lastTimestamp"); !t.IsZero() {
		return since(t)
	}
	return eventFirstSeen(ev)
}

// eventCount is the series count, else count; an event written once
// through the new API has no count and counts as 1.
func eventCount(u *unstructured.Unstructured) any {
	if object(u.Object, "series") != nil {
		return integer(u.Object, "series", "count")
	}
	if n := integer(u.Object, "count"); n != 0 {
		return n
	}
	return int64(1)
}

// eventObject names the involved object as "kind/name", lower-case kind.
func eventObject(u *unstructured.Unstructured) any {
	kind := strings.ToLower(str(u.Object, "involvedObject", "kind"))
	if name := str(u.Object, "involvedObject", "name"); name != "" {
		return kind + "/" + name
	}
	return kind
}

// eventSource is "component, host", falling back to the reporting
// controller and instance that events.k8s.io writers set instead.
func eventSource(u *unstructured.Unstructured) any {
	component := firstNonEmpty(str(u.Object, "source", "component"), str(u.Object, "reportingComponent"))
	host := firstNonEmpty(str(u.Object, "source", "host"), str(u.Object, "reportingInstance"))
	if host == "" {
		return component
	}
	return component + ", " + host
}

// firstNonEmpty is the first of ss that is not empty.
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
