package handler

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// write is what every create, update and patch shares: how to answer, how
// strictly to read fields, whether to store at all, and who is writing.
type write struct {
	out      output
	mode     string // fieldValidation
	dryRun   bool
	manager  string
	force    bool // apply's ?force
	warnings []string
	// alloc is what the write was given by its kind's Allocator, until
	// the store answers (allocate.go).
	alloc resource.Allocation
}

func (q *request) newWrite() (*write, error) {
	out, err := q.output()
	if err != nil {
		return nil, err
	}
	opts, err := q.writeQuery()
	if err != nil {
		return nil, err
	}
	mode := opts.fieldValidation
	if mode == "" {
		mode = metav1.FieldValidationWarn // kube's default
	}
	return &write{out: out, mode: mode, dryRun: opts.dryRun, force: opts.force,
		manager: managerName(opts.fieldManager, q.r.UserAgent())}, nil
}

// warn adds warnings for the response. The store may run a write twice
// (a stale cached read): each warning is sent once.
func (wr *write) warn(warnings []string) {
	for _, w := range warnings {
		if !slices.Contains(wr.warnings, w) {
			wr.warnings = append(wr.warnings, w)
		}
	}
}

// finish sends the stored object with any warnings.
func (q *request) finish(wr *write, code int, obj *storage.Object) error {
	q.writeWarnings(wr.warnings)
	return q.send(code, obj, wr.out)
}

// readObject starts a create or update: the write's options and the object
// in its body, in the URL's namespace.
func (q *request) readObject() (*write, *unstructured.Unstructured, error) {
	wr, err := q.newWrite()
	if err != nil {
		return nil, nil, err
	}
	body, err := readBody(q.r)
	if err != nil {
		return nil, nil, err
	}
	obj, warnings, err := decodeObject(q.res, contentType(q.r), body, wr.mode)
	if err != nil {
		return nil, nil, err
	}
	wr.warnings = warnings
	return wr, obj, q.matchNamespace(obj)
}

func (q *request) create() error {
	if q.info.Name != "" {
		return apierrors.NewMethodNotSupported(q.groupResource(), "create on a named "+q.res.Kind)
	}
	if q.res.Namespaced && q.info.Namespace == "" {
		return apierrors.NewBadRequest("the namespace of the object must be given in the URL")
	}
	wr, obj, err := q.readObject()
	if err != nil {
		return err
	}
	if obj.GetResourceVersion() != "" && !wr.dryRun {
		// kube's storage refuses it; its dry run never reaches storage and
		// answers as for any create.
		return apierrors.NewBadRequest("resourceVersion should not be set on objects to be created")
	}
	stored, err := q.createNamed(wr, obj)
	q.settle(wr, stored, err)
	if err != nil {
		return err
	}
	return q.finish(wr, http.StatusCreated, stored)
}

// admitCreate turns a decoded and named object into what is stored:
// server-owned fields, defaults, managed fields, then admission around
// validation and the namespace check. Nothing here touches storage but the
// namespace lookup.
func (q *request) admitCreate(wr *write, obj *unstructured.Unstructured) error {
	if err := q.prepareCreate(obj); err != nil {
		return err
	}
	if err := q.trackFields(wr, nil, obj); err != nil {
		return err
	}
	return q.checkCreate(wr, obj)
}

// checkCreate is kube's order for a new object: mutating admission,
// allocation, validation, validating admission. The name was generated
// before, so admission sees the name that will be stored.
func (q *request) checkCreate(wr *write, obj *unstructured.Unstructured) error {
	patched, err := q.mutateObject(wr, admissionv1.Create, obj, nil)
	if err != nil {
		return err
	}
	if patched != nil {
		// What the server owns is its own, whatever admission set.
		patched.SetUID(obj.GetUID())
		patched.SetCreationTimestamp(obj.GetCreationTimestamp())
		if err := q.prepareNew(patched); err != nil {
			return err
		}
		obj.Object = patched.Object
	}
	if err := q.allocate(wr, obj, nil); err != nil {
		return err
	}
	if err := q.validate(wr, obj, nil); err != nil {
		return err
	}
	if err := q.h.namespaceExists(q.r.Context(), q.res.Namespaced, obj.GetNamespace()); err != nil {
		return err
	}
	return q.validateObject(wr, admissionv1.Create, obj, nil)
}

// trackFields records obj's managed fields for an update by wr.manager;
// cur is nil on create.
func (q *request) trackFields(wr *write, cur, obj *unstructured.Unstructured) error {
	fm, err := q.h.fields.get(q.res, q.info.Subresource)
	if err != nil {
		return err
	}
	live := cur
	if live == nil {
		live = &unstructured.Unstructured{Object: map[string]any{}}
		live.SetGroupVersionKind(q.res.GroupVersionKind())
	}
	tracked := fm.UpdateNoErrors(live, obj, wr.manager)
	if u, ok := tracked.(*unstructured.Unstructured); ok {
		obj.Object = u.Object
	}
	return nil
}

// matchNamespace fills in the URL's namespace, refusing a different one.
func (q *request) matchNamespace(obj *unstructured.Unstructured) error {
	if !q.res.Namespaced {
		return nil
	}
	switch ns := obj.GetNamespace(); {
	case ns == "":
		obj.SetNamespace(q.info.Namespace)
	case ns != q.info.Namespace:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// namespaceExists refuses objects in a namespace that does not exist. The
// cache answers when it has the namespace; otherwise a consistent read
// makes sure it was not just created.
func (h *Handler) namespaceExists(ctx context.Context, namespaced bool, ns string) error {
	if !namespaced || h.namespaces == nil {
		return nil
	}
	if _, err := h.namespaces.Get(ctx, "", ns, storage.ReadOptions{ResourceVersion: "0"}); err == nil {
		return nil
	}
	if _, err := h.namespaces.Get(ctx, "", ns, storage.ReadOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, ns)
		}
		return err
	}
	return nil
}

func (q *request) update() error {
	if err := q.namespaceOK(); err != nil {
		return err
	}
	wr, obj, err := q.readObject()
	if err != nil {
		return err
	}
	if obj.GetName() != q.info.Name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", obj.GetName(), q.info.Name))
	}
	stored, err := q.store.Update(q.r.Context(), q.info.Namespace, q.info.Name, func(cur *storage.Object) (*unstructured.Unstructured, error) {
		live := cur.Decode()
		next := obj.DeepCopy()
		if err := q.preconditions(next, live); err != nil {
			return nil, err
		}
		if err := q.unconditional(next, live); err != nil {
			return nil, err
		}
		return next, q.admitUpdate(wr, next, live)
	}, wr.dryRun)
	q.settle(wr, stored, err)
	if err != nil {
		return err
	}
	return q.finish(wr, http.StatusOK, stored)
}

// preconditions checks a write's resourceVersion and uid against the
// current object: a stale one is a 409 Conflict.
func (q *request) preconditions(obj, cur *unstructured.Unstructured) error {
	if rv := obj.GetResourceVersion(); rv != "" && rv != cur.GetResourceVersion() {
		return apierrors.NewConflict(q.groupResource(), q.info.Name,
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	if uid := obj.GetUID(); uid != "" && uid != cur.GetUID() {
		return apierrors.NewConflict(q.groupResource(), q.info.Name,
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", uid, cur.GetUID()))
	}
	return nil
}

// unconditional lets a write whose object has no resourceVersion (a PUT
// without one, a patch or apply that empties it) overwrite the current
// object where the kind allows it, as kube's store does for most
// built-in kinds whatever the verb; else it is refused as kube refuses it.
func (q *request) unconditional(obj, cur *unstructured.Unstructured) error {
	if obj.GetResourceVersion() != "" {
		return nil
	}
	if !q.unconditionalUpdates() {
		// kube names the resource, not the kind, and the version it parsed.
		gr := q.groupResource()
		return apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: gr.Resource}, q.info.Name, field.ErrorList{
			field.Invalid(field.NewPath("metadata", "resourceVersion"), uint64(0), "must be specified for an update")})
	}
	obj.SetResourceVersion(cur.GetResourceVersion())
	return nil
}

// admitUpdate turns the new state of an object into what is stored. It
// runs inside the store's retry loop, so admission sees the live object as
// OldObject, as in kube's GuaranteedUpdate.
func (q *request) admitUpdate(wr *write, obj, cur *unstructured.Unstructured) error {
	if err := q.prepareUpdated(obj, cur); err != nil {
		return err
	}
	if err := q.trackFields(wr, cur, obj); err != nil {
		return err
	}
	return q.checkUpdate(wr, obj, cur)
}

// checkUpdate is kube's order for a changed object: mutating admission,
// allocation, validation, validating admission.
func (q *request) checkUpdate(wr *write, obj, cur *unstructured.Unstructured) error {
	patched, err := q.mutateObject(wr, admissionv1.Update, obj, cur)
	if err != nil {
		return err
	}
	if patched != nil {
		// What the server owns is its own, whatever admission set.
		if err := q.prepareUpdated(patched, cur); err != nil {
			return err
		}
		obj.Object = patched.Object
	}
	if err := q.allocate(wr, obj, cur); err != nil {
		return err
	}
	if err := q.validate(wr, obj, cur); err != nil {
		return err
	}
	return q.validateObject(wr, admissionv1.Update, obj, cur)
}
