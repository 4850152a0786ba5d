// Package storage is the registry's generic store: every resource, built-in
// or custom, is kept as JSON in etcd under its Info's key prefix, read
// through an in-memory cache fed by one etcd watch per resource, and written
// with transactions that compare the mod revision, so resourceVersion is the
// etcd revision and a stale write is a Conflict.
package storage

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Object is one stored object as the registry serves it. Objects are shared
// between the cache and every reader: never modify one, DeepCopy it.
type Object struct {
	// Obj is the decoded object, resourceVersion set to Rev.
	Obj *unstructured.Unstructured
	// JSON is Obj encoded, ready to send.
	JSON []byte
	// Rev is the etcd revision that last wrote the object (for a deletion
	// event, the revision of the delete).
	Rev int64
	// stored is the value as written in etcd (without resourceVersion), so
	// that a no-op update can be recognised and skipped.
	stored []byte

	// alt is the object in the one other encoding readers ask for
	// (protobuf), computed once on first use and shared by every reader
	// and watcher after.
	altOnce sync.Once
	alt     []byte
	altErr  error
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
	return newObject(&unstructured.Unstructured{Object: m}, value, rev)
}

// newObject stamps obj with rev and encodes it. obj becomes owned by the
// returned Object.
func newObject(obj *unstructured.Unstructured, stored []byte, rev int64) (*Object, error) {
	obj.SetResourceVersion(strconv.FormatInt(rev, 10))
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	return &Object{Obj: obj, JSON: data, Rev: rev, stored: stored}, nil
}

// withRevision returns a copy of o stamped with another revision, as a
// deletion event carries the last state with the revision of the delete.
func (o *Object) withRevision(rev int64) (*Object, error) {
	return newObject(o.Obj.DeepCopy(), o.stored, rev)
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
