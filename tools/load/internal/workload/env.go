// Package workload sets up, drives and cleans up the load the tool puts on an
// API server: seeding ConfigMaps, the get/list/create/update/mixed request
// loops and the watch fan-out measurement.
package workload

import (
	"io"
	"math/rand/v2"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/tools/load/internal/config"
)

// LabelRun is set on every ConfigMap a run creates, to the run's id, so they
// can be told apart from anything else in a namespace that already existed.
const LabelRun = "kubesplit.io/load-run"

// Keys of the data each ConfigMap carries.
const (
	keySeq     = "seq"     // a per-write counter, so every write changes the object
	keySent    = "sent"    // UnixNano when the write was sent (watch)
	keyPayload = "payload" // --size bytes of filler
)

// Env is what every part of a run needs: where to send requests and what to
// put in the objects.
type Env struct {
	// Client talks to the API server under test.
	Client kubernetes.Interface
	// Namespace holds everything the run creates.
	Namespace string
	// RunID is unique to the run; object names and LabelRun carry it.
	RunID string
	// Log receives progress and warnings (not the report).
	Log io.Writer
	// payload is the filler every object carries. Random letters, because
	// repeated ones would gzip to nothing and make lists look cheaper than
	// they are.
	payload string
}

// NewEnv returns the environment of a new run with objects of size bytes of
// data. A nil log discards progress messages.
func NewEnv(client kubernetes.Interface, namespace string, size int, log io.Writer) *Env {
	if log == nil {
		log = io.Discard
	}
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, size)
	for i := range b {
		b[i] = letters[rand.IntN(len(letters))]
	}
	return &Env{
		Client:    client,
		Namespace: namespace,
		RunID:     config.RandomSuffix(6),
		Log:       log,
		payload:   string(b),
	}
}

// data is the content of a ConfigMap at its seq-th write.
func (e *Env) data(seq uint64) map[string]string {
	return map[string]string{keySeq: strconv.FormatUint(seq, 10), keyPayload: e.payload}
}

// configMap is a new ConfigMap of this run, named name.
func (e *Env) configMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: e.Namespace,
			Labels:    map[string]string{LabelRun: e.RunID},
		},
		Data: e.data(0),
	}
}
