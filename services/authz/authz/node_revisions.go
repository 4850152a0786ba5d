package authz

import (
	"context"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	certsinformers "k8s.io/client-go/informers/certificates/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	resourceinformers "k8s.io/client-go/informers/resource/v1"
	storageinformers "k8s.io/client-go/informers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/resourceclaim"
)

// nodeRevisions versions the Node authorizer's graph. kube's populator
// registers its handlers on the informers it is given; the informers
// given here wrap each handler so that, once kube's handler has changed
// the graph, the event's resourceVersion is published as the graph's
// revision. Publishing after the change keeps an answer from the old
// graph from being labelled with the new revision. The handlers' sync
// state is the mode's readiness.
type nodeRevisions struct {
	source revisionSource

	mu     sync.Mutex
	synced []cache.InformerSynced
}

// ready is the node-graph-synced readiness check: every informer's
// initial list is in the graph.
func (w *nodeRevisions) ready(context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, synced := range w.synced {
		if !synced() {
			return ErrNotSynced
		}
	}
	return nil
}

// wrap is inf publishing its events; changed tells whether an update can
// have changed the graph (kube's populator ignores the others, and
// publishing them would empty the aggregator's cache on every pod status
// change).
func (w *nodeRevisions) wrap(inf cache.SharedIndexInformer, changed func(old, obj any) bool) cache.SharedIndexInformer {
	return publishingInformer{SharedIndexInformer: inf, w: w, changed: changed}
}

// publish raises the graph's revision to obj's resourceVersion.
func (w *nodeRevisions) publish(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	if rv, err := strconv.ParseInt(m.GetResourceVersion(), 10, 64); err == nil {
		w.source.Set(rv)
	}
}

// publishingInformer hands wrapped handlers to the informer it embeds.
type publishingInformer struct {
	cache.SharedIndexInformer
	w       *nodeRevisions
	changed func(old, obj any) bool
}

// AddEventHandler registers h, wrapped, and notes its sync state.
func (i publishingInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	reg, err := i.SharedIndexInformer.AddEventHandler(publishingHandler{next: h, w: i.w, changed: i.changed})
	if err != nil {
		return nil, err
	}
	i.w.mu.Lock()
	i.w.synced = append(i.w.synced, reg.HasSynced)
	i.w.mu.Unlock()
	return reg, nil
}

// publishingHandler runs kube's handler, then publishes.
type publishingHandler struct {
	next    cache.ResourceEventHandler
	w       *nodeRevisions
	changed func(old, obj any) bool
}

func (h publishingHandler) OnAdd(obj any, initial bool) {
	h.next.OnAdd(obj, initial)
	h.w.publish(obj)
}

func (h publishingHandler) OnUpdate(old, obj any) {
	h.next.OnUpdate(old, obj)
	if h.changed(old, obj) {
		h.w.publish(obj)
	}
}

func (h publishingHandler) OnDelete(obj any) {
	h.next.OnDelete(obj)
	h.w.publish(obj)
}

// podChanged mirrors the updates kube's populator takes into the graph: a
// pod (re)bound to a node, a new ephemeral container (new references),
// changed claim statuses.
func podChanged(old, obj any) bool {
	o, ok1 := old.(*corev1.Pod)
	n, ok2 := obj.(*corev1.Pod)
	if !ok1 || !ok2 {
		return true
	}
	return o.Spec.NodeName != n.Spec.NodeName || o.UID != n.UID ||
		len(n.Spec.EphemeralContainers) > len(o.Spec.EphemeralContainers) ||
		!resourceclaim.PodStatusEqual(o.Status.ResourceClaimStatuses, n.Status.ResourceClaimStatuses) ||
		!resourceclaim.PodExtendedStatusEqual(o.Status.ExtendedResourceClaimStatus, n.Status.ExtendedResourceClaimStatus)
}

// attachmentChanged: kube's populator takes an attachment moved to
// another node.
func attachmentChanged(old, obj any) bool {
	o, ok1 := old.(*storagev1.VolumeAttachment)
	n, ok2 := obj.(*storagev1.VolumeAttachment)
	return !ok1 || !ok2 || o.Spec.NodeName != n.Spec.NodeName
}

func always(any, any) bool { return true }
func never(any, any) bool  { return false }

// The typed informers kube's populator takes, each handing out its
// informer wrapped.
type (
	nodeInformer struct {
		coreinformers.NodeInformer
		w *nodeRevisions
	}
	podInformer struct {
		coreinformers.PodInformer
		w *nodeRevisions
	}
	pvInformer struct {
		coreinformers.PersistentVolumeInformer
		w *nodeRevisions
	}
	attachmentInformer struct {
		storageinformers.VolumeAttachmentInformer
		w *nodeRevisions
	}
	sliceInformer struct {
		resourceinformers.ResourceSliceInformer
		w *nodeRevisions
	}
	pcrInformer struct {
		certsinformers.PodCertificateRequestInformer
		w *nodeRevisions
	}
)

func (i nodeInformer) Informer() cache.SharedIndexInformer {
	return i.w.wrap(i.NodeInformer.Informer(), never)
}

func (i podInformer) Informer() cache.SharedIndexInformer {
	return i.w.wrap(i.PodInformer.Informer(), podChanged)
}

// PVs: kube's populator re-adds a PV on every update.
func (i pvInformer) Informer() cache.SharedIndexInformer {
	return i.w.wrap(i.PersistentVolumeInformer.Informer(), always)
}

func (i attachmentInformer) Informer() cache.SharedIndexInformer {
	return i.w.wrap(i.VolumeAttachmentInformer.Informer(), attachmentChanged)
}

// Slices and pod certificate requests: kube's populator takes no update
// (the fields it reads are immutable).
func (i sliceInformer) Informer() cache.SharedIndexInformer {
	return i.w.wrap(i.ResourceSliceInformer.Informer(), never)
}

func (i pcrInformer) Informer() cache.SharedIndexInformer {
	return i.w.wrap(i.PodCertificateRequestInformer.Informer(), never)
}
