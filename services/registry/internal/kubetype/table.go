package kubetype

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/printers"
	printersinternal "k8s.io/kubernetes/pkg/printers/internalversion"
)

// generator holds kube-apiserver's printers for every built-in kind.
var generator = printers.NewTableGenerator().With(printersinternal.AddHandlers)

// table prints one kind with kube's printer: every column, wide ones too,
// as kube-apiserver serves them (kubectl hides the wide ones itself).
type table struct {
	internal schema.GroupVersionKind
	once     sync.Once
	columns  []metav1.TableColumnDefinition
}

func newTable(internal schema.GroupVersionKind) *table {
	return &table{internal: internal}
}

// TableColumns are the kind's column definitions.
func (k *Kind) TableColumns() []metav1.TableColumnDefinition {
	t := k.table
	t.once.Do(func() {
		// The printer of an empty object still declares every column.
		if obj, err := legacyscheme.Scheme.New(t.internal); err == nil {
			if tab, err := generator.GenerateTable(obj, printers.GenerateOptions{Wide: true}); err == nil {
				t.columns = tab.ColumnDefinitions
			}
		}
		if t.columns == nil {
			t.columns = nameColumns
		}
	})
	return t.columns
}

// TableCells are one object's cells, one a column.
func (k *Kind) TableCells(u *unstructured.Unstructured) []any {
	cols := k.TableColumns()
	if obj, err := k.toInternal(u); err == nil {
		if tab, err := generator.GenerateTable(obj, printers.GenerateOptions{Wide: true, NoHeaders: true}); err == nil && len(tab.Rows) == 1 {
			return tab.Rows[0].Cells
		}
	}
	// An object kube cannot print still gets a row of the right width.
	cells := make([]any, len(cols))
	if len(cells) > 0 {
		cells[0] = u.GetName()
	}
	return cells
}

// nameColumns are what a kind without a printer shows, as kube's default
// table convertor does.
var nameColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
	{Name: "Created At", Type: "date", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
}
