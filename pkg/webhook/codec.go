package webhook

import (
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/kubesplit/kubesplit/pkg/apierror"
)

// Codec reads and writes built-in kinds in every media type kube-apiserver
// serves them in: JSON, YAML and protobuf. client-go's typed clients send
// built-in kinds as protobuf, so an endpoint they call directly (a review
// created through the aggregator) must read it; kube's webhooks, which
// speak JSON only, use DecodeRequest and WriteJSON instead.
type Codec struct {
	serializers map[string]runtime.Serializer
	mediaTypes  []string
}

// NewCodec returns a Codec for kinds, all of group version gv.
func NewCodec(gv schema.GroupVersion, kinds ...runtime.Object) *Codec {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypes(gv, kinds...)
	c := &Codec{serializers: map[string]runtime.Serializer{}}
	for _, info := range serializer.NewCodecFactory(scheme).SupportedMediaTypes() {
		c.serializers[info.MediaType] = info.Serializer
		c.mediaTypes = append(c.mediaTypes, info.MediaType)
	}
	return c
}

// DecodeRequest is DecodeRequest for any media type c supports; JSON goes
// exactly the same way. A body of another kind than into is a 400, as is
// one that does not decode.
func (c *Codec) DecodeRequest(w http.ResponseWriter, r *http.Request, resource schema.GroupResource, maxBytes int64, into runtime.Object) bool {
	if err := c.decodeRequest(w, r, resource, maxBytes, into); err != nil {
		apierror.Write(w, err)
		return false
	}
	return true
}

func (c *Codec) decodeRequest(w http.ResponseWriter, r *http.Request, resource schema.GroupResource, maxBytes int64, into runtime.Object) error {
	if err := checkMethod(w, r, resource); err != nil {
		return err
	}
	mt := contentType(r)
	s, ok := c.serializers[mt]
	if !ok {
		return unsupportedMediaType(r.Header.Get("Content-Type"), c.mediaTypes...)
	}
	data, err := readBody(w, r, resource, maxBytes)
	if err != nil {
		return err
	}
	if mt == runtime.ContentTypeJSON {
		return decodeJSON(data, resource, into)
	}
	return decodeObject(s, data, resource, into)
}

// decodeObject decodes data with s into into. The serializer hands back a
// new object when the data names another kind of the scheme; that is
// refused, as kube's create handler refuses a body of another kind.
func decodeObject(s runtime.Decoder, data []byte, resource schema.GroupResource, into runtime.Object) error {
	obj, gvk, err := s.Decode(data, nil, into)
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("decoding %s: %v", resource, err))
	}
	if obj != into {
		return apierrors.NewBadRequest(fmt.Sprintf("decoding %s: unexpected kind %s", resource, gvk))
	}
	return nil
}
