package storage

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// versions is how a store serving one version of a resource keeps objects
// stored at another: a custom resource served at several versions, whose
// objects are all kept at the storage version and converted on the way in
// and out, by rewriting apiVersion alone (kube's "None" conversion) or by
// a Converter, and what is done to every object read (read). A nil
// *versions stores what it serves and reads it as it is.
type versions struct {
	served, stored string
	convert        Converter
	read           func(*unstructured.Unstructured)
}

func newVersions(served, stored string, convert Converter, read func(*unstructured.Unstructured)) *versions {
	if stored == "" {
		stored = served
	}
	if stored == served && read == nil {
		return nil
	}
	if convert == nil {
		convert = rewrite
	}
	return &versions{served: served, stored: stored, convert: convert, read: read}
}

// rewrite converts by changing apiVersion alone.
func rewrite(obj map[string]any, apiVersion string) (map[string]any, error) {
	obj["apiVersion"] = apiVersion
	return obj, nil
}

// decode reads a value from etcd at the served version.
func (v *versions) decode(value []byte, rev int64) (*Object, error) {
	if v == nil {
		return decode(value, rev)
	}
	m := map[string]any{}
	if err := utiljson.Unmarshal(value, &m); err != nil {
		return nil, fmt.Errorf("corrupt object in storage: %w", err)
	}
	if m["apiVersion"] != v.served {
		var err error
		if m, err = v.convert(m, v.served); err != nil {
			return nil, err
		}
	}
	obj := &unstructured.Unstructured{Object: m}
	if v.read != nil {
		v.read(obj)
	}
	return NewObject(obj, rev)
}

// encode is what is written to etcd: the object at the stored version.
func (v *versions) encode(obj *unstructured.Unstructured) ([]byte, error) {
	if v == nil || v.stored == v.served {
		return encodeForStorage(obj)
	}
	stored, err := v.convert(obj.DeepCopy().Object, v.stored)
	if err != nil {
		return nil, err
	}
	return encodeForStorage(&unstructured.Unstructured{Object: stored})
}
