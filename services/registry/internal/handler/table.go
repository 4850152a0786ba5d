package handler

import (
	"cmp"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesplit/kubesplit/services/registry/internal/printers"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// tableOptions is what ?includeObject asks each row to carry: None,
// Metadata (the default) or Object.
type tableOptions struct {
	includeObject metav1.IncludeObjectPolicy
	// noHeaders leaves out the column definitions (watch events after the
	// first, as kube sends them).
	noHeaders bool
	// version is the Table's meta.k8s.io version; empty means v1.
	version string
}

// table renders objects as the meta.k8s.io/v1 Table kubectl prints.
func table(info *resource.Info, objs []*storage.Object, rv, cont string, opts tableOptions) *metav1.Table {
	tab := info.Table()
	t := &metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/" + cmp.Or(opts.version, "v1")},
		ListMeta: metav1.ListMeta{ResourceVersion: rv, Continue: cont},
		Rows:     make([]metav1.TableRow, 0, len(objs)),
	}
	if !opts.noHeaders {
		t.ColumnDefinitions = tab.TableColumns()
	}
	for _, obj := range objs {
		t.Rows = append(t.Rows, tableRow(tab, obj, opts))
	}
	return t
}

// tableRow is one object's row.
func tableRow(tab printers.Table, obj *storage.Object, opts tableOptions) metav1.TableRow {
	row := metav1.TableRow{Cells: tab.TableCells(obj.Decode())}
	switch opts.includeObject {
	case metav1.IncludeNone:
	case metav1.IncludeObject:
		row.Object = runtime.RawExtension{Raw: obj.JSON}
	default:
		raw, _ := json.Marshal(partialMetadata(obj))
		row.Object = runtime.RawExtension{Raw: raw}
	}
	return row
}
