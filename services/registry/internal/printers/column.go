// Package printers holds the table columns kubectl prints for each built-in
// resource (kubectl get without -o), served as meta.k8s.io/v1 Table. The
// lists follow kube-apiserver's own tables column for column, so kubectl
// shows the same output against kubesplit as against a real cluster.
package printers

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Column is one column of a resource's table: its definition and how to
// compute a cell from an object.
type Column struct {
	metav1.TableColumnDefinition
	Cell func(obj *unstructured.Unstructured) any
}

// strCell is a Cell showing the string at path, the cell of most columns
// that print a field as it is.
func strCell(path ...string) func(*unstructured.Unstructured) any {
	return func(u *unstructured.Unstructured) any { return str(u.Object, path...) }
}

// Cells computes one table row's cells for obj, one per column, in order.
// Every column is filled, wide ones included (as kube-apiserver does):
// kubectl itself drops the Priority > 0 cells unless asked for -o wide.
func Cells(cols []Column, obj *unstructured.Unstructured) []any {
	if obj == nil || obj.Object == nil {
		// A row for nothing still needs one cell a column.
		obj = &unstructured.Unstructured{Object: map[string]any{}}
	}
	cells := make([]any, len(cols))
	for i, c := range cols {
		if c.Cell != nil {
			cells[i] = c.Cell(obj)
		}
	}
	return cells
}

// Rows builds the meta/v1 TableRows for objs, using cols; each row's Object
// is left for the caller, which knows whether the client asked for none,
// metadata only, or the full object (TableOptions includeObject).
func Rows(cols []Column, objs []*unstructured.Unstructured) []metav1.TableRow {
	rows := make([]metav1.TableRow, len(objs))
	for i, obj := range objs {
		rows[i] = metav1.TableRow{Cells: Cells(cols, obj)}
	}
	return rows
}

// Definitions returns the column definitions, for Table.ColumnDefinitions.
func Definitions(cols []Column) []metav1.TableColumnDefinition {
	defs := make([]metav1.TableColumnDefinition, len(cols))
	for i, c := range cols {
		defs[i] = c.TableColumnDefinition
	}
	return defs
}
