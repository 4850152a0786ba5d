package handler

import (
	"mime"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Media types the registry speaks.
const (
	mediaJSON     = "application/json"
	mediaYAML     = "application/yaml"
	mediaProtobuf = "application/vnd.kubernetes.protobuf"
)

// output is what a client asked to receive.
type output struct {
	media string // mediaJSON, mediaYAML or mediaProtobuf
	// as is "Table", "PartialObjectMetadata" or "PartialObjectMetadataList"
	// when the client asked for a meta.k8s.io view instead of the object.
	as string
	// metaVersion is the view's meta.k8s.io version: v1, or v1beta1 for a
	// Table, which kube still serves.
	metaVersion string
}

// negotiate picks the response format from the Accept header, the first
// acceptable entry winning. Nothing acceptable is 406, as kube answers.
// Protobuf is offered only for kinds compiled into the binary.
func negotiate(r *http.Request, protobufOK bool) (output, error) {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return output{media: mediaJSON}, nil
	}
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if o, ok := accepted(mt, params); ok && (protobufOK || o.media != mediaProtobuf) {
			return o, nil
		}
	}
	return output{}, apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "", schema.GroupResource{}, "",
		"only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf", 0, false)
}

// accepted reports whether one Accept entry is something the registry can
// produce.
func accepted(mt string, params map[string]string) (output, bool) {
	var media string
	switch mt {
	case mediaJSON, "application/*", "*/*":
		media = mediaJSON
	case mediaYAML:
		media = mediaYAML
	case mediaProtobuf:
		media = mediaProtobuf
	default:
		return output{}, false
	}
	as := params["as"]
	if as == "" {
		return output{media: media}, true
	}
	v := params["v"]
	if params["g"] != "meta.k8s.io" || (v != "v1" && !(v == "v1beta1" && as == "Table")) {
		return output{}, false
	}
	switch as {
	case "Table":
		// Tables are served as JSON (kubectl asks for them so).
		return output{media: mediaJSON, as: as, metaVersion: v}, media != mediaProtobuf
	case "PartialObjectMetadata", "PartialObjectMetadataList":
		return output{media: media, as: as}, true
	}
	return output{}, false
}

// contentType returns the media type of a request body, JSON when unset.
func contentType(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return mediaJSON
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ct
	}
	return mt
}
