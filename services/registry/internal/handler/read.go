package handler

import (
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// output negotiates the response format for this request's resource.
func (q *request) output() (output, error) {
	_, typed := resource.Typed(q.res.GroupVersionKind())
	return negotiate(q.r, typed)
}

func (q *request) tableOptions(out output) tableOptions {
	return tableOptions{includeObject: metav1.IncludeObjectPolicy(q.r.URL.Query().Get("includeObject")), version: out.metaVersion}
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
	return writeObject(q.w, code, q.res, obj, out, q.tableOptions(out))
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
	defer res.Release()
	q.written = true
	return writeList(q.w, q.res, res, out, q.tableOptions(out))
}
