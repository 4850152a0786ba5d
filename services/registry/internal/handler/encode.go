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

// writeList sends a page of a list. Every format but protobuf's
// metadata-only view is streamed (liststream.go).
func writeList(w http.ResponseWriter, info *resource.Info, res *storage.ListResult, out output, opts tableOptions) error {
	rv := strconv.FormatInt(res.Rev, 10)
	meta := metav1.ListMeta{ResourceVersion: rv, Continue: res.Continue, RemainingItemCount: res.Remaining}
	switch out.as {
	case "Table":
		return streamTable(w, info, res, rv, opts)
	case "PartialObjectMetadataList", "PartialObjectMetadata":
		if out.media == mediaJSON {
			return streamPartialList(w, res, meta)
		}
		list := &metav1.PartialObjectMetadataList{
			TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadataList", APIVersion: "meta.k8s.io/v1"},
			ListMeta: meta,
		}
		for _, item := range res.Items {
			list.Items = append(list.Items, *partialMetadata(item))
		}
		return writeTyped(w, http.StatusOK, out.media, list)
	}
	switch out.media {
	case mediaProtobuf:
		return streamListProto(w, info, res, meta)
	case mediaJSON:
		return streamListJSON(w, info, res, meta)
	}
	return streamListYAML(w, info, res, meta)
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
