// Package printers holds the table columns kubectl prints (kubectl get
// without -o, served as meta.k8s.io/v1 Table) for what kube's own printers
// do not cover: custom resources with their additionalPrinterColumns,
// CustomResourceDefinitions, APIServices, and the default NAME / CREATED AT
// table. The lists follow kube-apiserver's tables column for column.
package printers

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Table is how a resource prints: its column definitions and one object's
// cells, one a column. Columns implements it for hand-listed columns (custom
// resources); built-in kinds use kube's own printers (package kubetype).
type Table interface {
	TableColumns() []metav1.TableColumnDefinition
	TableCells(obj *unstructured.Unstructured) []any
}

// Columns is a Table of hand-listed columns.
type Columns []Column

// TableColumns returns the column definitions.
func (cols Columns) TableColumns() []metav1.TableColumnDefinition { return Definitions(cols) }

// TableCells computes obj's cells.
func (cols Columns) TableCells(obj *unstructured.Unstructured) []any { return Cells(cols, obj) }

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
