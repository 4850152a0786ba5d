package handler

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// errNeedsFinalizing stops an immediate delete of an object that gained a
// finalizer meanwhile, so that it is marked for deletion instead.
var errNeedsFinalizing = errors.New("the object needs finalizing")

// Finalizers the garbage collector acts on, set here when a DELETE asks
// for foreground or orphan propagation.
const (
	finalizerForeground = metav1.FinalizerDeleteDependents
	finalizerOrphan     = metav1.FinalizerOrphanDependents
)

// deleteOptions reads DeleteOptions from the body (any media type) and
// the query.
func (q *request) deleteOptions() (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	body, err := readBody(q.r)
	if err != nil {
		return nil, err
	}
	if len(body) > 0 {
		if err := decodeDeleteOptions(contentType(q.r), body, opts); err != nil {
			return nil, err
		}
	}
	v := q.r.URL.Query()
	if p := v.Get("propagationPolicy"); p != "" {
		policy := metav1.DeletionPropagation(p)
		opts.PropagationPolicy = &policy
	}
	if v.Get("orphanDependents") == "true" && opts.PropagationPolicy == nil {
		policy := metav1.DeletePropagationOrphan
		opts.PropagationPolicy = &policy
	}
	if g := v.Get("gracePeriodSeconds"); g != "" {
		n, err := strconv.ParseInt(g, 10, 64)
		if err != nil {
			return nil, apierrors.NewBadRequest("gracePeriodSeconds must be an integer")
		}
		opts.GracePeriodSeconds = &n
	}
	if d, ok := v["dryRun"]; ok {
		opts.DryRun = d
	}
	// Kube's checks of the options, from the body or the query: a dryRun
	// other than All, an unknown propagationPolicy, or one beside
	// orphanDependents is 422 Invalid, as kube answers.
	if err := invalidOptions("DeleteOptions", validation.ValidateDeleteOptions(opts)); err != nil {
		return nil, err
	}
	q.defaultPropagation(opts)
	return opts, nil
}

// decodeDeleteOptions reads a DeleteOptions body as kube does: through
// the meta internal scheme, which takes DeleteOptions under any group
// version (clients send it in the resource's own group version, a custom
// resource's included, or as meta.k8s.io/v1) and under none.
func decodeDeleteOptions(media string, body []byte, opts *metav1.DeleteOptions) error {
	info, ok := runtime.SerializerInfoForMediaType(metainternalversionscheme.Codecs.SupportedMediaTypes(), media)
	if !ok {
		return unsupportedMedia(media)
	}
	def := metav1.SchemeGroupVersion.WithKind("DeleteOptions")
	obj, _, err := metainternalversionscheme.Codecs.DecoderToVersion(info.Serializer, def.GroupVersion()).Decode(body, &def, opts)
	if err != nil {
		return apierrors.NewBadRequest("the body is not valid DeleteOptions: " + err.Error())
	}
	if obj != opts {
		return apierrors.NewBadRequest("decoded object cannot be converted to DeleteOptions")
	}
	return nil
}

// defaultPropagation orphans the dependents of a kind whose strategy
// does so by default (v1 ReplicationControllers, batch/v1 Jobs) when the
// delete names no policy, with the warning kube sends for it.
func (q *request) defaultPropagation(opts *metav1.DeleteOptions) {
	s := q.res.Strategy
	if opts.PropagationPolicy != nil || opts.OrphanDependents != nil || s == nil || !s.OrphansByDefault(q.strategyContext()) {
		return
	}
	orphan := metav1.DeletePropagationOrphan
	opts.PropagationPolicy = &orphan
	if q.res.OrphanWarning != "" {
		q.addWarnings([]string{q.res.OrphanWarning})
	}
}

func (q *request) delete() error {
	if err := q.namespaceOK(); err != nil {
		return err
	}
	out, err := q.output()
	if err != nil {
		return err
	}
	opts, err := q.deleteOptions()
	if err != nil {
		return err
	}
	cur, err := q.store.Get(q.r.Context(), q.info.Namespace, q.info.Name, storage.ReadOptions{})
	if err != nil {
		return err
	}
	obj, done, err := q.deleteOne(cur, opts)
	if err != nil {
		return err
	}
	q.writeWarnings(nil)
	if !done {
		// Finalizers or a grace period hold the object back: kube answers
		// with it, 202 only when orphanDependents=false was asked for.
		code := http.StatusOK
		if o := opts.OrphanDependents; o != nil && !*o {
			code = http.StatusAccepted
		}
		return q.send(code, obj, out)
	}
	if q.res.ReturnDeletedObject {
		return q.send(http.StatusOK, obj, out)
	}
	return q.success(obj.Decode())
}

// deleteOne deletes an object, or, when finalizers (its own or those the
// propagation policy adds) must run first, marks it for deletion. done
// reports whether it is gone.
// cur is the object as last read; the store checks it is still current.
func (q *request) deleteOne(cur *storage.Object, opts *metav1.DeleteOptions) (*storage.Object, bool, error) {
	ctx := q.r.Context()
	namespace, name := cur.Namespace(), cur.Name()
	dry := len(opts.DryRun) > 0
	check := func(live *unstructured.Unstructured) error { return q.deletePreconditions(opts.Preconditions, live) }
	if graced, ok, err := q.deleteGracefully(cur, opts); ok || err != nil {
		return graced, false, err
	}
	if !q.needsFinalizing(cur.Decode(), opts) {
		gone, err := q.store.Delete(ctx, namespace, name, func(cur *storage.Object) error {
			live := cur.Decode()
			// A finalizer added since the read above must still hold the
			// object back.
			if q.needsFinalizing(live, opts) {
				return errNeedsFinalizing
			}
			if err := check(live); err != nil {
				return err
			}
			return q.admitDelete(live, opts)
		}, dry)
		if !errors.Is(err, errNeedsFinalizing) {
			if err == nil {
				q.release(gone, dry)
			}
			return gone, true, err
		}
	}
	marked, err := q.store.Update(ctx, namespace, name, func(cur *storage.Object) (*unstructured.Unstructured, error) {
		live := cur.Decode()
		if err := check(live); err != nil {
			return nil, err
		}
		if err := q.admitDelete(live, opts); err != nil {
			return nil, err
		}
		return q.markDeleted(live, opts), nil
	}, dry)
	if err != nil {
		return nil, false, err
	}
	q.releaseIfGone(marked, dry)
	if marked.Decode().GetDeletionTimestamp() == nil {
		return marked, true, nil
	}
	return marked, false, nil
}

// deleteGracefully is a delete of a kind kube deletes gracefully (a pod
// on a node): the object is kept with a deletionTimestamp its grace period
// ahead, for its kubelet to finish, or left alone while one runs. ok
// reports that the delete was handled so.
func (q *request) deleteGracefully(cur *storage.Object, opts *metav1.DeleteOptions) (*storage.Object, bool, error) {
	s := q.res.Strategy
	if s == nil {
		return nil, false, nil
	}
	graceful, pending, err := s.BeforeDelete(q.strategyContext(), cur.Decode(), opts.DeepCopy())
	switch {
	case err != nil:
		return nil, false, err
	case pending:
		return cur, true, nil
	case !graceful:
		return nil, false, nil
	}
	marked, err := q.store.Update(q.r.Context(), cur.Namespace(), cur.Name(), func(now *storage.Object) (*unstructured.Unstructured, error) {
		live := now.Decode()
		if err := q.deletePreconditions(opts.Preconditions, live); err != nil {
			return nil, err
		}
		if err := q.admitDelete(live, opts); err != nil {
			return nil, err
		}
		graced := live.DeepCopy()
		graceful, _, err := s.BeforeDelete(q.strategyContext(), graced, opts.DeepCopy())
		if err != nil || !graceful {
			return live, err // raced with another delete: leave it
		}
		return graced, nil
	}, len(opts.DryRun) > 0)
	return marked, err == nil, err
}

// needsFinalizing reports whether deleting obj must wait for finalizers.
func (q *request) needsFinalizing(obj *unstructured.Unstructured, opts *metav1.DeleteOptions) bool {
	if len(obj.GetFinalizers()) > 0 || q.res.MarkDeleted != nil {
		return true
	}
	// Being deleted with a grace period that has not run out: only a
	// delete that shortens it to zero (deleteGracefully passed) removes it.
	if obj.GetDeletionTimestamp() != nil && !q.gracefulKind() {
		return true
	}
	if p := opts.PropagationPolicy; p != nil && *p != metav1.DeletePropagationBackground {
		return true
	}
	if q.res.SpecFinalizers {
		f, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "finalizers")
		return len(f) > 0
	}
	return false
}

// gracefulKind reports whether the kind is deleted gracefully (kube's
// strategy has a grace period for it).
func (q *request) gracefulKind() bool {
	return q.res.Strategy != nil && q.res.Strategy.Graceful()
}

// markDeleted sets deletionTimestamp and the finalizer a propagation
// policy asks for; a namespace also turns Terminating.
func (q *request) markDeleted(cur *unstructured.Unstructured, opts *metav1.DeleteOptions) *unstructured.Unstructured {
	obj := cur.DeepCopy()
	if obj.GetDeletionTimestamp() == nil {
		now := q.h.now()
		obj.SetDeletionTimestamp(&now)
		zero := int64(0)
		obj.SetDeletionGracePeriodSeconds(&zero)
	}
	if p := opts.PropagationPolicy; p != nil {
		finalizers := without(obj.GetFinalizers(), finalizerForeground, finalizerOrphan)
		switch *p {
		case metav1.DeletePropagationForeground:
			finalizers = append(finalizers, finalizerForeground)
		case metav1.DeletePropagationOrphan:
			finalizers = append(finalizers, finalizerOrphan)
		}
		obj.SetFinalizers(finalizers)
	}
	if q.res.SpecFinalizers {
		_ = unstructured.SetNestedField(obj.Object, "Terminating", "status", "phase")
	}
	if q.res.MarkDeleted != nil {
		q.res.MarkDeleted(obj)
	}
	return obj
}

func without(list []string, drop ...string) []string {
	var out []string
	for _, s := range list {
		keep := true
		for _, d := range drop {
			keep = keep && s != d
		}
		if keep {
			out = append(out, s)
		}
	}
	return out
}

// deletePreconditions checks DeleteOptions.preconditions.
func (q *request) deletePreconditions(p *metav1.Preconditions, cur *unstructured.Unstructured) error {
	if p == nil {
		return nil
	}
	if p.UID != nil && *p.UID != cur.GetUID() {
		return apierrors.NewConflict(q.groupResource(), cur.GetName(),
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, cur.GetUID()))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != cur.GetResourceVersion() {
		return apierrors.NewConflict(q.groupResource(), cur.GetName(),
			fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, cur.GetResourceVersion()))
	}
	return nil
}

// success answers a completed delete with a Success Status, as kube does.
func (q *request) success(obj *unstructured.Unstructured) error {
	s := &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details:  &metav1.StatusDetails{Name: obj.GetName(), Group: q.res.Group, Kind: q.res.Resource, UID: obj.GetUID()},
	}
	q.written = true
	out, err := q.output()
	if err != nil || out.as != "" {
		out = output{media: mediaJSON}
	}
	return writeTyped(q.w, http.StatusOK, out.media, s)
}

// deleteCollectionWorkers is how many deletes of a deletecollection run at
// once: enough to hide etcd's round trips, few enough to leave the server
// to everyone else.
const deleteCollectionWorkers = 8

// deleteAll deletes items with a few workers, stopping at the first error
// other than an object already gone.
func (q *request) deleteAll(items []*storage.Object, opts *metav1.DeleteOptions) error {
	work := make(chan *storage.Object)
	errs := make(chan error, deleteCollectionWorkers)
	var wg sync.WaitGroup
	for range min(deleteCollectionWorkers, len(items)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for item := range work {
				if _, _, err := q.deleteOne(item, opts); err != nil && !apierrors.IsNotFound(err) {
					errs <- err
					return
				}
			}
		}()
	}
	var err error
feed:
	for _, item := range items {
		select {
		case work <- item:
		case err = <-errs:
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	return err
}

func (q *request) deleteCollection() error {
	opts, err := q.deleteOptions()
	if err != nil {
		return err
	}
	lopts, err := q.listOptions()
	if err != nil {
		return err
	}
	res, err := q.store.List(q.r.Context(), q.info.Namespace, lopts)
	if err != nil {
		return err
	}
	defer res.Release()
	if err := q.deleteAll(res.Items, opts); err != nil {
		return err
	}
	q.writeWarnings(nil)
	q.written = true
	return writeTyped(q.w, http.StatusOK, mediaJSON, &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess})
}

var _ runtime.Object = &metav1.Status{}
