package printers

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/duration"
)

// metaDoc holds ObjectMeta's field descriptions, which kube uses for the
// Name, Age and Created At columns of every table.
var metaDoc = metav1.ObjectMeta{}.SwaggerDoc()

// now is the clock ages are measured against; tests pin it.
var now = time.Now

// nameColumn is the NAME column every table starts with.
func nameColumn() Column {
	return Column{
		TableColumnDefinition: metav1.TableColumnDefinition{
			Name: "Name", Type: "string", Format: "name", Description: metaDoc["name"],
		},
		Cell: strCell("metadata", "name"),
	}
}

// ageColumn is the AGE column: time since creation, as kubectl prints it.
func ageColumn() Column {
	return Column{
		TableColumnDefinition: metav1.TableColumnDefinition{
			Name: "Age", Type: "string", Description: metaDoc["creationTimestamp"],
		},
		Cell: func(u *unstructured.Unstructured) any {
			return since(timestamp(u.Object, "metadata", "creationTimestamp"))
		},
	}
}

// createdAtColumn is the CREATED AT column of kube's default table: the
// creation time itself rather than an age. A missing timestamp prints as
// the zero time, as kube's does.
func createdAtColumn() Column {
	return Column{
		TableColumnDefinition: metav1.TableColumnDefinition{
			Name: "Created At", Type: "date", Description: metaDoc["creationTimestamp"],
		},
		Cell: func(u *unstructured.Unstructured) any {
			return timestamp(u.Object, "metadata", "creationTimestamp").UTC().Format(time.RFC3339)
		},
	}
}

// since is how long ago t was, in kubectl's human form ("5m", "3h2m");
// "<unknown>" when t is unset.
func since(t time.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now().Sub(t))
}
