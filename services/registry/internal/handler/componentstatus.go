package handler

import (
	"cmp"
	"encoding/json"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/registry/core/componentstatus"
)

// Components are the servers componentstatuses reports on, by name, as
// kube's componentstatus REST takes them (probed on every read).
type Components func() map[string]componentstatus.Server

// SetComponents has h serve componentstatuses by probing what c returns;
// without it they are 404.
func (h *Handler) SetComponents(c Components) { h.components = c }

// componentStatuses answers a get or list of componentstatuses with kube's
// own REST for them, which probes each component as it is asked, and
// encodes its answer as kube's handlers do: the v1 object, or a Table.
func (q *request) componentStatuses() error {
	if q.h.components == nil {
		return apierrors.NewNotFound(q.groupResource(), q.info.Name)
	}
	out, err := q.output()
	if err != nil {
		return err
	}
	rest := componentstatus.NewStorage(q.h.components)
	ctx := q.r.Context()
	var obj runtime.Object
	if q.info.Verb == "get" {
		obj, err = rest.Get(ctx, q.info.Name, &metav1.GetOptions{})
	} else {
		opts, perr := q.listQuery()
		if perr != nil {
			return perr
		}
		obj, err = rest.List(ctx, opts)
	}
	if err != nil {
		return err
	}
	if out.as == "Table" {
		table, err := rest.ConvertToTable(ctx, obj, nil)
		if err != nil {
			return err
		}
		q.written = true
		return writeTyped(q.w, http.StatusOK, out.media, componentTable(table, q.tableOptions(out)))
	}
	external, err := legacyscheme.Scheme.ConvertToVersion(obj, corev1.SchemeGroupVersion)
	if err != nil {
		return err
	}
	q.written = true
	return writeTyped(q.w, http.StatusOK, out.media, external)
}

// componentTable is kube's Table of component statuses with each row's
// object as ?includeObject asks: none, the v1 object, or (the default)
// its metadata.
func componentTable(t *metav1.Table, opts tableOptions) *metav1.Table {
	t.TypeMeta = metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/" + cmp.Or(opts.version, "v1")}
	for i := range t.Rows {
		status, ok := t.Rows[i].Object.Object.(*api.ComponentStatus)
		t.Rows[i].Object = runtime.RawExtension{}
		if !ok || opts.includeObject == metav1.IncludeNone {
			continue
		}
		var row any = &metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
			ObjectMeta: status.ObjectMeta,
		}
		if opts.includeObject == metav1.IncludeObject {
			v1 := &corev1.ComponentStatus{}
			if err := legacyscheme.Scheme.Convert(status, v1, nil); err != nil {
				continue
			}
			v1.TypeMeta = metav1.TypeMeta{Kind: "ComponentStatus", APIVersion: "v1"}
			row = v1
		}
		t.Rows[i].Object.Raw, _ = json.Marshal(row)
	}
	return t
}
