package registry

import (
	"context"
	"slices"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// warnings collects the Warning headers a client is sent.
type warnings struct {
	mu  sync.Mutex
	got []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.got = append(w.got, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	got := w.got
	w.got = nil
	return got
}

// A custom resource's new finalizers that are not domain-qualified are
// warned about, in kube's words, on create and on update; standard and
// qualified ones are not, nor ones the object had already.
func TestCustomResourceFinalizerWarnings(t *testing.T) {
	cfg, _ := startWithWidgets(t)
	w := &warnings{}
	cfg = rest.CopyConfig(cfg)
	cfg.WarningHandler = w
	res := dynamic.NewForConfigOrDie(cfg).Resource(widgets).Namespace("default")
	ctx := context.Background()

	obj := widget("fin", map[string]any{"replicas": int64(1)})
	obj.SetFinalizers([]string{"foo", "example.com/ok", "a.b", "kubernetes"})
	created, err := res.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`metadata.finalizers: "a.b": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`,
		`metadata.finalizers: "foo": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`,
	}
	if got := w.take(); !slices.Equal(got, want) {
		t.Errorf("create warned %q, want %q", got, want)
	}

	created.SetFinalizers(append(created.GetFinalizers(), "bar"))
	if _, err := res.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	want = []string{`metadata.finalizers: "bar": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`}
	if got := w.take(); !slices.Equal(got, want) {
		t.Errorf("update warned %q, want %q", got, want)
	}
}
