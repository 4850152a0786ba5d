package kubetype

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// Strategy is kube's strategy for a kind's own object: what a create and
// an update of it reset, validate and warn about.
type Strategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

// Kind is one built-in kind, served in one version, written through kube's
// strategies.
type Kind struct {
	gvk      schema.GroupVersionKind
	internal schema.GroupVersionKind
	object   Strategy
	// subresources are the strategies of writes to a subresource ("status",
	// "finalize", …); a subresource without one is written as the object.
	subresources map[string]rest.RESTUpdateStrategy
	table        *table
	attrs        Attrs // see FieldSet
}

// New describes the kind gvk, written through object's strategy and, by
// subresource name, the subresources' own.
func New(gvk schema.GroupVersionKind, object Strategy, subresources map[string]rest.RESTUpdateStrategy) *Kind {
	if !legacyscheme.Scheme.Recognizes(gvk) {
		panic(fmt.Sprintf("kubetype: %v is not a kind kube serves", gvk))
	}
	internal := gvk.GroupKind().WithVersion(runtime.APIVersionInternal)
	return &Kind{gvk: gvk, internal: internal, object: object, subresources: subresources,
		table: newTable(internal)}
}

// Default fills in what kube's defaulters for the served version would.
// An object of the wrong shape is left as it is: Validate reports it.
func (k *Kind) Default(u *unstructured.Unstructured) {
	ext, err := k.external(u)
	if err != nil {
		return
	}
	_ = k.store(u, ext)
}

// PrepareForCreate clears what a client may not set on a new object and
// sets what the server owns, as kube's strategy does (status reset,
// generation 1, disabled fields dropped), defaulting first as kube's
// decoder does.
func (k *Kind) PrepareForCreate(ctx context.Context, u *unstructured.Unstructured) error {
	obj, err := k.toInternal(u)
	if err != nil {
		return err
	}
	k.object.PrepareForCreate(ctx, obj)
	return k.fromInternal(obj, u)
}

// PrepareForUpdate carries over from old what a write to subresource may
// not change (status through the object, spec through status) and moves
// generation when the spec changed.
func (k *Kind) PrepareForUpdate(ctx context.Context, subresource string, u, old *unstructured.Unstructured) error {
	obj, prev, err := k.pair(u, old)
	if err != nil {
		return err
	}
	k.update(subresource).PrepareForUpdate(ctx, obj, prev)
	return k.fromInternal(obj, u)
}

// Validate checks a create (old nil) or an update of subresource with
// kube's validation, ObjectMeta's included, and returns kube's warnings.
// A valid object is left in kube's canonical form.
func (k *Kind) Validate(ctx context.Context, subresource string, u, old *unstructured.Unstructured) (field.ErrorList, []string, error) {
	if old == nil {
		obj, err := k.toInternal(u)
		if err != nil {
			return nil, nil, err
		}
		if errs := rest.ValidateCreate(ctx, obj, k.object); len(errs) > 0 {
			return errs, nil, nil
		}
		warnings := k.object.WarningsOnCreate(ctx, obj)
		k.object.Canonicalize(obj)
		return nil, warnings, k.fromInternal(obj, u)
	}
	obj, prev, err := k.pair(u, old)
	if err != nil {
		return nil, nil, err
	}
	s := k.update(subresource)
	if errs := rest.ValidateUpdate(ctx, obj, prev, s); len(errs) > 0 {
		return errs, nil, nil
	}
	warnings := s.WarningsOnUpdate(ctx, obj, prev)
	s.Canonicalize(obj)
	return nil, warnings, k.fromInternal(obj, u)
}

// AllowUnconditionalUpdate reports whether a PUT without a resourceVersion
// may overwrite the object, as kube's strategy decides.
func (k *Kind) AllowUnconditionalUpdate(ctx context.Context) bool {
	return k.object.AllowUnconditionalUpdate(ctx)
}

func (k *Kind) update(subresource string) rest.RESTUpdateStrategy {
	if s, ok := k.subresources[subresource]; ok {
		return s
	}
	return k.object
}

func (k *Kind) pair(u, old *unstructured.Unstructured) (runtime.Object, runtime.Object, error) {
	obj, err := k.toInternal(u)
	if err != nil {
		return nil, nil, err
	}
	prev, err := k.toInternal(old)
	return obj, prev, err
}

// external is u as the served version's Go type, defaulted.
func (k *Kind) external(u *unstructured.Unstructured) (runtime.Object, error) {
	ext, err := legacyscheme.Scheme.New(k.gvk)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, ext); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the object is not a valid %s: %v", k.gvk.Kind, err))
	}
	legacyscheme.Scheme.Default(ext)
	return ext, nil
}

// toInternal is u defaulted and converted to kube's internal version.
func (k *Kind) toInternal(u *unstructured.Unstructured) (runtime.Object, error) {
	ext, err := k.external(u)
	if err != nil {
		return nil, err
	}
	obj, err := legacyscheme.Scheme.New(k.internal)
	if err != nil {
		return nil, err
	}
	if err := legacyscheme.Scheme.Convert(ext, obj, nil); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the object is not a valid %s: %v", k.gvk.Kind, err))
	}
	return obj, nil
}

// fromInternal writes obj back into u in the served version.
func (k *Kind) fromInternal(obj runtime.Object, u *unstructured.Unstructured) error {
	ext, err := legacyscheme.Scheme.New(k.gvk)
	if err != nil {
		return err
	}
	if err := legacyscheme.Scheme.Convert(obj, ext, nil); err != nil {
		return apierrors.NewInternalError(err)
	}
	return k.store(u, ext)
}

// store replaces u's content with ext's.
func (k *Kind) store(u *unstructured.Unstructured, ext runtime.Object) error {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ext)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	u.Object = m
	u.SetGroupVersionKind(k.gvk)
	return nil
}

// BeforeDelete is kube's rest.BeforeDelete for kinds deleted gracefully
// (pods): graceful reports that obj now carries a deletionTimestamp in the
// future, to be stored instead of deleting it; pending, that a graceful
// deletion already runs and this request leaves it as it is. Other kinds
// report neither.
func (k *Kind) BeforeDelete(ctx context.Context, u *unstructured.Unstructured, opts *metav1.DeleteOptions) (graceful, pending bool, err error) {
	if !k.Graceful() {
		return false, false, nil
	}
	obj, err := k.toInternal(u)
	if err != nil {
		return false, false, err
	}
	graceful, pending, err = rest.BeforeDelete(k.object, ctx, obj, opts)
	if err != nil || !graceful {
		return graceful, pending, err
	}
	return true, false, k.fromInternal(obj, u)
}

// Graceful reports whether kube deletes the kind gracefully.
func (k *Kind) Graceful() bool {
	_, ok := k.object.(rest.RESTGracefulDeleteStrategy)
	return ok
}

// OrphansByDefault reports whether a delete that names no propagation
// policy orphans the object's dependents, as kube keeps for the old API
// versions of ReplicationControllers and Jobs.
func (k *Kind) OrphansByDefault(ctx context.Context) bool {
	gc, ok := k.object.(rest.GarbageCollectionDeleteStrategy)
	return ok && gc.DefaultGarbageCollectionPolicy(ctx) == rest.OrphanDependents
}
