package handler

import (
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// protobufMagic starts every protobuf-encoded Kubernetes object.
var protobufMagic = []byte{0x6b, 0x38, 0x73, 0x00}

// marshaler is what k8s.io/api's generated types implement.
type marshaler interface{ Marshal() ([]byte, error) }

// objectProto is an object's protobuf encoding without the envelope,
// computed once per stored object.
func objectProto(info *resource.Info, obj *storage.Object) ([]byte, error) {
	return obj.Encoded(func(o *storage.Object) ([]byte, error) {
		typed, ok := resource.Typed(info.GroupVersionKind())
		if !ok {
			return nil, fmt.Errorf("%s has no protobuf encoding", info.Kind)
		}
		if err := json.Unmarshal(o.JSON, typed); err != nil {
			return nil, err
		}
		m, ok := typed.(marshaler)
		if !ok {
			return nil, fmt.Errorf("%s has no protobuf encoding", info.Kind)
		}
		return m.Marshal()
	})
}

// envelope wraps a kind's protobuf bytes the way kube sends them: the magic
// prefix, then a runtime.Unknown naming the kind.
func envelope(gvk schema.GroupVersionKind, raw []byte) ([]byte, error) {
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind}, Raw: raw}
	b, err := u.Marshal()
	if err != nil {
		return nil, err
	}
	return append(append(make([]byte, 0, len(b)+4), protobufMagic...), b...), nil
}

// listProto assembles a list's protobuf from its items' cached encodings.
// Every list kind of k8s.io/api has ListMeta as field 1 and items as field 2.
func listProto(info *resource.Info, res *storage.ListResult, meta metav1.ListMeta) ([]byte, error) {
	mb, err := meta.Marshal()
	if err != nil {
		return nil, err
	}
	b := protowire.AppendTag(nil, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, mb)
	for _, item := range res.Items {
		ib, err := objectProto(info, item)
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, ib)
	}
	return envelope(info.GroupVersion().WithKind(info.ListKind()), b)
}
