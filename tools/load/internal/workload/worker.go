package workload

import (
	"context"
	"fmt"
	"math/rand/v2"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// worker is one request loop's state. Only its own goroutine touches it.
type worker struct {
	id      int
	env     *Env
	client  corev1client.ConfigMapInterface
	seeded  []*corev1.ConfigMap // shared and read-only: what get reads
	owned   []*corev1.ConfigMap // this worker's share, as last written
	stale   []bool              // owned[i]'s resourceVersion may be out of date
	next    int                 // index in owned of the next update
	writes  uint64              // this worker's updates so far, for the data's seq
	created int                 // this worker's creates so far, for unique names
}

// newWorker returns worker id of n. It owns every seeded object whose index
// is id modulo n, so no two workers ever update the same object.
func newWorker(env *Env, seeded []*corev1.ConfigMap, id, n int) *worker {
	w := &worker{
		id:     id,
		env:    env,
		client: env.Client.CoreV1().ConfigMaps(env.Namespace),
		seeded: seeded,
	}
	for i := id; i < len(seeded); i += n {
		w.owned = append(w.owned, seeded[i].DeepCopy())
	}
	w.stale = make([]bool, len(w.owned))
	return w
}

// get reads a random seeded object.
func (w *worker) get(ctx context.Context) error {
	_, err := w.client.Get(ctx, w.seeded[rand.IntN(len(w.seeded))].Name, metav1.GetOptions{})
	return err
}

// list reads every object in the namespace, in one page.
func (w *worker) list(ctx context.Context) error {
	_, err := w.client.List(ctx, metav1.ListOptions{})
	return err
}

// create makes a new object; the name carries the run and the worker, so it
// is unique without asking the server.
func (w *worker) create(ctx context.Context) error {
	w.created++
	name := fmt.Sprintf("create-%s-%d-%d", w.env.RunID, w.id, w.created)
	_, err := w.client.Create(ctx, w.env.configMap(name), metav1.CreateOptions{})
	return err
}

// prepareUpdate brings the next object to update back in sync when its last
// write failed: a failed write leaves its resourceVersion unknown, and every
// later write would conflict. It is not measured.
func (w *worker) prepareUpdate(ctx context.Context) {
	i := w.next
	if !w.stale[i] {
		return
	}
	if cm, err := w.client.Get(ctx, w.owned[i].Name, metav1.GetOptions{}); err == nil {
		w.owned[i], w.stale[i] = cm, false
	}
}

// update writes new data to the next owned object with the resourceVersion
// of its last write, so it needs no GET and meets no conflict.
func (w *worker) update(ctx context.Context) error {
	i := w.next
	w.next = (w.next + 1) % len(w.owned)
	w.writes++
	cm := w.owned[i].DeepCopy()
	cm.Data = w.env.data(w.writes)
	out, err := w.client.Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		w.stale[i] = true
		return err
	}
	w.owned[i] = out
	return nil
}
