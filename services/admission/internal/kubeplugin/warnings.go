package kubeplugin

import (
	"context"
	"slices"
	"sync"

	"k8s.io/apiserver/pkg/warning"
)

// warnings collects what a plugin passes to kube's warning.AddWarning,
// which kube-apiserver sends as Warning headers: each text once, in order.
type warnings struct {
	mu    sync.Mutex
	texts []string
}

// withWarnings is ctx recording the plugin's warnings into w.
func withWarnings(ctx context.Context) (context.Context, *warnings) {
	w := &warnings{}
	return warning.WithWarningRecorder(ctx, w), w
}

// AddWarning implements kube's warning.Recorder.
func (w *warnings) AddWarning(_, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if text != "" && !slices.Contains(w.texts, text) {
		w.texts = append(w.texts, text)
	}
}

// list is the warnings recorded.
func (w *warnings) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.texts)
}
