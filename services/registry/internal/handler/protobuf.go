package handler

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"

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

// streamListProto writes a list as protobuf from its items' cached
// encodings (see liststream.go), each written as it comes: only the sizes
// are needed first, since every length-delimited field states its length.
// Every list kind of k8s.io/api has ListMeta as field 1 and items as field
// 2.
func streamListProto(w http.ResponseWriter, info *resource.Info, res *storage.ListResult, meta metav1.ListMeta) error {
	mb, err := meta.Marshal()
	if err != nil {
		return err
	}
	// The items' encodings are computed once per stored object and kept
	// with it, so holding them here copies nothing.
	items := make([][]byte, len(res.Items))
	rawSize := 1 + protowire.SizeBytes(len(mb))
	for i, item := range res.Items {
		if items[i], err = objectProto(info, item); err != nil {
			return err
		}
		rawSize += 1 + protowire.SizeBytes(len(items[i]))
	}
	gvk := info.GroupVersion().WithKind(info.ListKind())
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind}}
	// Size leaves out Raw, which is nil here; MarshalToWriter writes it.
	size := len(protobufMagic) + u.Size() + 1 + protowire.SizeBytes(rawSize)
	w.Header().Set("Content-Type", mediaProtobuf)
	w.Header().Set("Content-Length", strconv.Itoa(size))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(protobufMagic); err != nil {
		return err
	}
	_, err = u.MarshalToWriter(w, rawSize, func(w io.Writer) (int, error) {
		n, err := writeProtoField(w, 1, mb)
		for _, ib := range items {
			if err != nil {
				break
			}
			var m int
			m, err = writeProtoField(w, 2, ib)
			n += m
		}
		return n, err
	})
	return err
}

// writeProtoField writes one length-delimited field.
func writeProtoField(w io.Writer, num protowire.Number, data []byte) (int, error) {
	var hdr [1 + binary.MaxVarintLen64]byte
	h := protowire.AppendVarint(protowire.AppendTag(hdr[:0], num, protowire.BytesType), uint64(len(data)))
	n, err := w.Write(h)
	if err != nil {
		return n, err
	}
	m, err := w.Write(data)
	return n + m, err
}
