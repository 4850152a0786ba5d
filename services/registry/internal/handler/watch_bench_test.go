package handler

import (
	"io"
	"net/http"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// discard is a ResponseWriter that keeps nothing.
type discard struct{ h http.Header }

func (d discard) Header() http.Header         { return d.h }
func (d discard) Write(b []byte) (int, error) { return io.Discard.Write(b) }
func (discard) WriteHeader(int)               {}
func (discard) Flush()                        {}

// BenchmarkProtobufWatchEvent is one pod event sent to a hundred watchers
// speaking protobuf, as controllers and kubelets watch.
func BenchmarkProtobufWatchEvent(b *testing.B) {
	var pods *resource.Info
	for _, info := range resource.Builtins() {
		if info.Group == "" && info.Resource == "pods" {
			pods = info
		}
	}
	encs := make([]*watchEncoder, 100)
	for i := range encs {
		encs[i] = &watchEncoder{w: discard{h: http.Header{}}, res: pods, out: output{media: mediaProtobuf}}
	}
	b.ReportAllocs()
	for b.Loop() {
		obj, err := storage.NewObject(&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "p", "namespace": "ns", "resourceVersion": "7"},
			"spec":     map[string]any{"nodeName": "n", "containers": []any{map[string]any{"name": "c", "image": "i"}}},
		}}, 7)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range encs {
			if err := e.event(storage.Event{Type: watch.Modified, Object: obj}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
