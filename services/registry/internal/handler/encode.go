package handler

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"sigs.k8s.io/yaml"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

var protobufSerializer = protobuf.NewSerializer(resource.Scheme, resource.Scheme)

// writeObject sends one object in the format the client negotiated.
func writeObject(w http.ResponseWriter, code int, info *resource.Info, obj *storage.Object, out output, opts tableOptions) error {
	switch out.as {
	case "Table":
		return writeJSONValue(w, code, table(info, []*storage.Object{obj}, obj.ResourceVersion(), "", opts))
	case "PartialObjectMetadata":
		return writeTyped(w, code, out.media, partialMetadata(obj))
	}
	if out.media == mediaProtobuf {
		raw, err := objectProto(info, obj)
		if err != nil {
			return err
		}
		data, err := envelope(info.GroupVersionKind(), raw)
		if err != nil {
			return err
		}
		return send(w, code, mediaProtobuf, data)
	}
	return writeRaw(w, code, out.media, obj.JSON, info.GroupVersionKind())
}

// writeList sends a page of a list.
func writeList(w http.ResponseWriter, info *resource.Info, res *storage.ListResult, out output, opts tableOptions) error {
	rv := strconv.FormatInt(res.Rev, 10)
	switch out.as {
	case "Table":
		return writeJSONValue(w, http.StatusOK, table(info, res.Items, rv, res.Continue, opts))
	case "PartialObjectMetadataList", "PartialObjectMetadata":
		list := &metav1.PartialObjectMetadataList{
			TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadataList", APIVersion: "meta.k8s.io/v1"},
			ListMeta: metav1.ListMeta{ResourceVersion: rv, Continue: res.Continue, RemainingItemCount: res.Remaining},
		}
		for _, item := range res.Items {
			list.Items = append(list.Items, *partialMetadata(item))
		}
		return writeTyped(w, http.StatusOK, out.media, list)
	}
	if out.media == mediaProtobuf {
		data, err := listProto(info, res, metav1.ListMeta{ResourceVersion: rv, Continue: res.Continue, RemainingItemCount: res.Remaining})
		if err != nil {
			return err
		}
		return send(w, http.StatusOK, mediaProtobuf, data)
	}
	return writeRaw(w, http.StatusOK, out.media, listJSON(info, res), info.GroupVersion().WithKind(info.ListKind()))
}

// listJSON assembles a list from its items' encoded bytes, so a list costs
// no encoding beyond a copy.
func listJSON(info *resource.Info, res *storage.ListResult) []byte {
	meta, _ := json.Marshal(metav1.ListMeta{ResourceVersion: strconv.FormatInt(res.Rev, 10), Continue: res.Continue, RemainingItemCount: res.Remaining})
	size := 128 + len(meta)
	for _, item := range res.Items {
		size += len(item.JSON) + 1
	}
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString(`{"kind":"`)
	b.WriteString(info.ListKind())
	b.WriteString(`","apiVersion":"`)
	b.WriteString(info.APIVersion())
	b.WriteString(`","metadata":`)
	b.Write(meta)
	b.WriteString(`,"items":[`)
	for i, item := range res.Items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(item.JSON)
	}
	b.WriteString("]}")
	return b.Bytes()
}

// writeRaw sends JSON bytes as JSON, YAML or, for built-in kinds, protobuf.
func writeRaw(w http.ResponseWriter, code int, media string, data []byte, gvk schema.GroupVersionKind) error {
	switch media {
	case mediaYAML:
		y, err := yaml.JSONToYAML(data)
		if err != nil {
			return err
		}
		return send(w, code, mediaYAML, y)
	case mediaProtobuf:
		obj, ok := resource.Typed(gvk)
		if !ok {
			return send(w, code, mediaJSON, data)
		}
		if err := json.Unmarshal(data, obj); err != nil {
			return err
		}
		return writeTyped(w, code, mediaProtobuf, obj)
	}
	return send(w, code, mediaJSON, data)
}

// writeTyped encodes a Go value of a registered kind.
func writeTyped(w http.ResponseWriter, code int, media string, obj runtime.Object) error {
	if media == mediaProtobuf {
		var b bytes.Buffer
		if err := protobufSerializer.Encode(obj, &b); err != nil {
			return err
		}
		return send(w, code, mediaProtobuf, b.Bytes())
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	return writeRaw(w, code, media, data, obj.GetObjectKind().GroupVersionKind())
}

// writeJSONValue sends any value as JSON.
func writeJSONValue(w http.ResponseWriter, code int, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return send(w, code, mediaJSON, data)
}

func send(w http.ResponseWriter, code int, media string, data []byte) error {
	w.Header().Set("Content-Type", media)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(code)
	_, err := w.Write(data)
	return err
}

// partialMetadata is the metadata-only view of an object.
func partialMetadata(obj *storage.Object) *metav1.PartialObjectMetadata {
	p := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"}}
	if m, ok := obj.Decode().Object["metadata"]; ok {
		if b, err := json.Marshal(m); err == nil {
			_ = json.Unmarshal(b, &p.ObjectMeta)
		}
	}
	return p
}
