package resource

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Scheme knows the Go types of the built-in kinds. The store never needs
// them; the wire formats do (protobuf, strict decoding of unknown fields,
// strategic merge patch).
var Scheme = runtime.NewScheme()

// Codecs are the serializers of Scheme's types.
var Codecs = serializer.NewCodecFactory(Scheme)

func init() {
	utilruntime.Must(clientgoscheme.AddToScheme(Scheme))
	utilruntime.Must(apiextensionsv1.AddToScheme(Scheme))
	utilruntime.Must(apiregistrationv1.AddToScheme(Scheme))
	metav1.AddToGroupVersion(Scheme, schema.GroupVersion{Version: "v1"})
	utilruntime.Must(metav1.AddMetaToScheme(Scheme))
}

// Typed returns an empty Go value of a built-in kind, or false for kinds
// the binary does not compile in (custom resources).
func Typed(gvk schema.GroupVersionKind) (runtime.Object, bool) {
	obj, err := Scheme.New(gvk)
	return obj, err == nil
}
