package handler

import (
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// output negotiates the response format for this request's resource.
func (q *request) output() (output, error) {
	_, typed := resource.Typed(q.res.GroupVersionKind())
	return negotiate(q.r, typed)
}

func (q *request) tableOptions() tableOptions {
	return tableOptions{includeObject: metav1.IncludeObjectPolicy(q.r.URL.Query().Get("includeObject"))}
}

// readOptions reads ?resourceVersion and ?resourceVersionMatch.
func (q *request) readOptions() storage.ReadOptions {
	v := q.r.URL.Query()
	return storage.ReadOptions{
		ResourceVersion:      v.Get("resourceVersion"),
		ResourceVersionMatch: metav1.ResourceVersionMatch(v.Get("resourceVersionMatch")),
	}
}

func (q *request) get() error {
	out, err := q.output()
	if err != nil {
		return err
	}
	if err := q.namespaceOK(); err != nil {
		return err
	}
	obj, err := q.store.Get(q.r.Context(), q.info.Namespace, q.info.Name, q.readOptions())
	if err != nil {
		return err
	}
	return q.send(http.StatusOK, obj, out)
}

// send writes one object.
func (q *request) send(code int, obj *storage.Object, out output) error {
	q.written = true
	return writeObject(q.w, code, q.res, obj, out, q.tableOptions())
}

func (q *request) list() error {
	out, err := q.output()
	if err != nil {
		return err
	}
	opts, err := q.listOptions()
	if err != nil {
		return err
	}
	res, err := q.store.List(q.r.Context(), q.info.Namespace, opts)
	if err != nil {
		return err
	}
	q.written = true
	return writeList(q.w, q.res, res, out, q.tableOptions())
}

// listOptions reads a list's query parameters.
func (q *request) listOptions() (storage.ListOptions, error) {
	v := q.r.URL.Query()
	sel, err := selector(v.Get("labelSelector"), v.Get("fieldSelector"))
	if err != nil {
		return storage.ListOptions{}, err
	}
	opts := storage.ListOptions{ReadOptions: q.readOptions(), Selector: sel, Continue: v.Get("continue")}
	if l := v.Get("limit"); l != "" {
		n, err := strconv.ParseInt(l, 10, 64)
		if err != nil || n < 0 {
			return opts, apierrors.NewBadRequest(fmt.Sprintf("limit must be a non-negative integer, not %q", l))
		}
		opts.Limit = n
	}
	if opts.Continue != "" && opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
		return opts, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
	}
	return opts, nil
}

// selector parses label and field selectors, answering 400 for bad ones.
func selector(label, field string) (storage.Selector, error) {
	lbl, err := labels.Parse(label)
	if err != nil {
		return storage.Selector{}, apierrors.NewBadRequest("unable to parse labelSelector: " + err.Error())
	}
	fld, err := fields.ParseSelector(field)
	if err != nil {
		return storage.Selector{}, apierrors.NewBadRequest("unable to parse fieldSelector: " + err.Error())
	}
	return storage.Selector{Label: lbl, Field: fld}, nil
}
