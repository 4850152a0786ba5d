// Package storage is the registry's generic store: every resource, built-in
// or custom, is kept as JSON in etcd under its Info's key prefix, read
// through an in-memory cache fed by one etcd watch per resource, and written
// with transactions that compare the mod revision, so resourceVersion is the
// etcd revision and a stale write is a Conflict.
package storage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// Object is one stored object as the registry serves it: its encoding and
// the few fields that selectors read. The cache holds nothing else per
// object, which keeps the registry small; Decode gives a full copy when a
// caller needs one. Objects are shared by the cache and every reader and are
// never modified.
type Object struct {
	// JSON is the object encoded, resourceVersion included, ready to send.
	JSON []byte
	// Rev is the etcd revision that last wrote the object (for a deletion
	// event, the revision of the delete).
	Rev int64

	name, namespace string
	labels          map[string]string
	// fields is where JSON's fields after apiVersion and kind begin, or 0
	// when they do not lead it (see encode).
	fields int

	// alt is the object in the one other encoding readers ask for
	// (protobuf), computed once on first use and shared by every reader
	// and watcher after.
	altOnce sync.Once
	alt     []byte
	altErr  error

	// selected are the object's selectable fields for the resource
	// selectedFor, computed once, when a field selector first asks.
	selectedOnce sync.Once
	selectedFor  *resource.Info
	selected     fields.Set
	selectedErr  error
}

// Name is the object's metadata.name.
func (o *Object) Name() string { return o.name }

// Namespace is the object's metadata.namespace.
func (o *Object) Namespace() string { return o.namespace }

// Labels are the object's labels; callers must not modify them.
func (o *Object) Labels() map[string]string { return o.labels }

// ResourceVersion is Rev as the API spells it.
func (o *Object) ResourceVersion() string { return strconv.FormatInt(o.Rev, 10) }

// Decode returns a copy of the object that the caller owns.
func (o *Object) Decode() *unstructured.Unstructured {
	m := map[string]any{}
	if err := utiljson.Unmarshal(o.JSON, &m); err != nil {
		// JSON was encoded from a decoded object; this cannot fail.
		slog.Error("cached object does not decode", "name", o.name, "err", err)
	}
	return &unstructured.Unstructured{Object: m}
}

// selectable returns the object's selectable fields for info as compute
// makes them, computed once: an object is shared by every list and
// watcher, which would otherwise each decode it (a pod event matched
// against every kubelet's spec.nodeName). Asked for another resource than
// the first (one object served as two), they are computed each time.
func (o *Object) selectable(info *resource.Info, compute func(*Object) (fields.Set, error)) (fields.Set, error) {
	o.selectedOnce.Do(func() {
		o.selectedFor = info
		o.selected, o.selectedErr = compute(o)
	})
	if o.selectedFor != info {
		return compute(o)
	}
	return o.selected, o.selectedErr
}

// Encoded returns the object as compute encodes it, computing it only
// once: objects are immutable and shared, so one encoding serves every
// reader. compute must always produce the same encoding.
func (o *Object) Encoded(compute func(*Object) ([]byte, error)) ([]byte, error) {
	o.altOnce.Do(func() { o.alt, o.altErr = compute(o) })
	return o.alt, o.altErr
}

// decode builds an Object from a value read from etcd at revision rev.
func decode(value []byte, rev int64) (*Object, error) {
	m := map[string]any{}
	if err := utiljson.Unmarshal(value, &m); err != nil {
		return nil, fmt.Errorf("corrupt object in storage: %w", err)
	}
	return NewObject(&unstructured.Unstructured{Object: m}, rev)
}

// NewObject stamps obj with rev and encodes it.
func NewObject(obj *unstructured.Unstructured, rev int64) (*Object, error) {
	obj.SetResourceVersion(strconv.FormatInt(rev, 10))
	data, fields, err := encode(obj.Object)
	if err != nil {
		return nil, err
	}
	return &Object{JSON: data, Rev: rev, name: obj.GetName(), namespace: obj.GetNamespace(), labels: obj.GetLabels(), fields: fields}, nil
}

// FieldsWithoutType is the object's JSON less its opening brace, and less
// apiVersion and kind where they lead it: a list writes '{' and these bytes
// for an item that, as kube lists built-in kinds, names no type.
func (o *Object) FieldsWithoutType() []byte {
	if o.fields > 0 {
		return o.JSON[o.fields:]
	}
	return o.JSON[1:]
}

// withRevision returns a copy of o stamped with another revision, as a
// deletion event carries the last state with the revision of the delete.
func (o *Object) withRevision(rev int64) (*Object, error) {
	return NewObject(o.Decode(), rev)
}

// unchanged reports whether obj has the content o has, so that an update
// to it can be skipped. Both encodings come from encode, which orders
// keys, so equal content is equal bytes.
func (o *Object) unchanged(obj *unstructured.Unstructured) bool {
	rv := obj.GetResourceVersion()
	obj.SetResourceVersion(o.ResourceVersion())
	data, _, err := encode(obj.Object)
	obj.SetResourceVersion(rv)
	return err == nil && bytes.Equal(data, o.JSON)
}

// encodeForStorage is what is written to etcd: the object without its
// resourceVersion, which etcd's revision supplies on every read.
func encodeForStorage(obj *unstructured.Unstructured) ([]byte, error) {
	meta, _ := obj.Object["metadata"].(map[string]any)
	rv, hadRV := meta["resourceVersion"]
	if hadRV {
		delete(meta, "resourceVersion")
		defer func() { meta["resourceVersion"] = rv }()
	}
	return json.Marshal(obj.Object)
}
