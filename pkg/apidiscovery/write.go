package apidiscovery

import (
	"net/http"
	"strconv"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// codecs encode apidiscovery.k8s.io/v2 in JSON, YAML and protobuf.
var codecs = func() serializer.CodecFactory {
	scheme := runtime.NewScheme()
	utilruntime.Must(apidiscoveryv2.AddToScheme(scheme))
	return serializer.NewCodecFactory(scheme)
}()

// Write answers with the document in out's media type, as kube's
// aggregated discovery handler does: ETag, Vary: Accept and
// Cache-Control: public on every answer, and 304 Not Modified without a
// body when If-None-Match names the ETag.
func (d *Document) Write(w http.ResponseWriter, r *http.Request, out Output) {
	h := w.Header()
	if d.etag != "" {
		quoted := strconv.Quote(d.etag)
		h.Set("ETag", quoted)
		h.Set("Vary", "Accept")
		h.Set("Cache-Control", "public")
		if r.Header.Get("If-None-Match") == quoted {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	data, err := d.Encode(out.Media)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h.Set("Content-Type", out.ContentType())
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(data)
	}
}

// Encode is the document in media (MediaJSON, MediaYAML or
// MediaProtobuf), with its kind and apiVersion.
func (d *Document) Encode(media string) ([]byte, error) {
	info, ok := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), media)
	if !ok {
		return nil, NotAcceptable()
	}
	list := d.list // a shallow copy: the encoder sets its type
	return runtime.Encode(codecs.EncoderForVersion(info.Serializer, apidiscoveryv2.SchemeGroupVersion), &list)
}

// Decode reads an aggregated document in JSON or protobuf, as an
// upstream answered it.
func Decode(data []byte) (*apidiscoveryv2.APIGroupDiscoveryList, error) {
	var list apidiscoveryv2.APIGroupDiscoveryList
	decoder := codecs.UniversalDecoder(apidiscoveryv2.SchemeGroupVersion)
	if err := runtime.DecodeInto(decoder, data, &list); err != nil {
		return nil, err
	}
	return &list, nil
}
