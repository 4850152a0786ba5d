package handler

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/apierror"
	apirequest "github.com/kubesplit/kubesplit/pkg/request"
)

// Admission are the two admission stages every write passes, as
// kube-apiserver runs its mutating then its validating webhooks. A nil stage
// is skipped, as kube runs with no admission plugin.
type Admission struct {
	// Mutating may patch the object; its patch is applied before the
	// registry's own defaulting and validation, so it cannot store an
	// invalid object.
	Mutating admission.Admitter
	// Validating sees the object that will be stored and only decides.
	Validating admission.Admitter
}

// admitters holds the stages behind admission.Chain, which holds each
// answer to the Admitter contract (a patch only from the mutating stage,
// only a well-formed one) whatever the admitter is, local or remote.
type admitters struct {
	mutating, validating admission.Admitter
}

func newAdmitters(a Admission) admitters {
	var out admitters
	// Chain fails only on a nil admitter, which is checked first.
	if a.Mutating != nil {
		out.mutating, _ = admission.Chain(admission.Mutating(a.Mutating))
	}
	if a.Validating != nil {
		out.validating, _ = admission.Chain(admission.Validating(a.Validating))
	}
	return out
}

// review is one question to admission about a write: the fields of an
// AdmissionRequest the registry fills in. Its objects are encoded only once
// a stage wants to be asked (see encode).
type review struct {
	op        admissionv1.Operation
	kind      schema.GroupVersionKind
	name      string
	namespace string
	newObj    any // what object encodes; nil on DELETE
	oldObj    any // what old encodes; nil on CREATE
	options   runtime.Object
	dryRun    bool

	encoded     bool
	object, old []byte // JSON, once encoded
}

// encode fills in the objects' JSON, once.
func (rv *review) encode() error {
	if rv.encoded {
		return nil
	}
	var err error
	if rv.newObj != nil {
		if rv.object, err = json.Marshal(rv.newObj); err != nil {
			return err
		}
	}
	if rv.oldObj != nil {
		if rv.old, err = json.Marshal(rv.oldObj); err != nil {
			return err
		}
	}
	rv.encoded = true
	return nil
}

// attributes are the Attributes of rv for this request, as kube fills an
// AdmissionRequest: the resource and subresource of the URL, the caller the
// aggregator asserted; without the objects and options (see withObjects).
func (q *request) attributes(rv *review) *admission.Attributes {
	gvr := metav1.GroupVersionResource{Group: q.res.Group, Version: q.res.Version, Resource: q.res.Resource}
	gvk := metav1.GroupVersionKind{Group: rv.kind.Group, Version: rv.kind.Version, Kind: rv.kind.Kind}
	a := &admission.Attributes{
		Operation: rv.op,
		Kind:      gvk, Resource: gvr, SubResource: q.info.Subresource,
		RequestKind: gvk, RequestResource: gvr, RequestSubResource: q.info.Subresource,
		Name: rv.name, Namespace: rv.namespace,
		DryRun: rv.dryRun,
	}
	if a.Namespace == "" && q.res.Group == "" && q.res.Resource == "namespaces" {
		// As kube does, so that namespace-scoped policy applies to the
		// namespace itself.
		a.Namespace = rv.name
	}
	if u, ok := apirequest.UserFrom(q.r.Context()); ok {
		a.UserInfo = u
	}
	return a
}

// withObjects fills in a's objects and options from rv.
func withObjects(a *admission.Attributes, rv *review) error {
	if err := rv.encode(); err != nil {
		return err
	}
	a.Object = runtime.RawExtension{Raw: rv.object}
	a.OldObject = runtime.RawExtension{Raw: rv.old}
	if rv.options != nil {
		raw, err := json.Marshal(rv.options)
		if err != nil {
			return err
		}
		a.Options.Raw = raw
	}
	return nil
}

// mutate asks the mutating stage about rv and returns the object with its
// patch applied, or nil when nothing changed (or no stage is configured).
func (q *request) mutate(rv *review) ([]byte, error) {
	if q.h.adm.mutating == nil {
		return nil, nil
	}
	res, err := q.ask(q.h.adm.mutating, rv)
	if err != nil || len(res.Patch) == 0 {
		return nil, err
	}
	patched, err := admission.ApplyPatch(rv.object, res.Patch)
	if err != nil {
		return nil, admissionError(err)
	}
	return patched, nil
}

// validateAdmission asks the validating stage about rv.
func (q *request) validateAdmission(rv *review) error {
	if q.h.adm.validating == nil {
		return nil
	}
	_, err := q.ask(q.h.adm.validating, rv)
	return err
}

// ask runs one stage: a denial is its Status, an admitter that could not
// answer is 503; warnings go to the client either way.
// A stage whose rules match nothing of rv allows it without being asked,
// and without rv's objects being encoded.
func (q *request) ask(a admission.Admitter, rv *review) (*admission.Result, error) {
	attrs := q.attributes(rv)
	ctx := admission.WithNamespaceStates(q.r.Context(), namespaceStates{h: q.h})
	if !admission.Wants(ctx, a, attrs) {
		return admission.Allow(), nil
	}
	if err := withObjects(attrs, rv); err != nil {
		return nil, err
	}
	res, err := a.Admit(ctx, attrs)
	if err != nil {
		return nil, admissionError(err)
	}
	q.addWarnings(res.Warnings)
	if err := res.StatusError(); err != nil {
		return nil, err
	}
	return res, nil
}

// admissionError is the answer when admission gave none. An admitter that
// broke the contract (a patch that does not apply, a validating admitter
// patching) will do so again: 500. Anything else (unreachable, timed out, a
// malformed answer) is 503 with Retry-After, which client-go retries, writes
// included, since the request never reached etcd. The cause stays in the
// log: it names internal addresses.
func admissionError(err error) error {
	slog.Warn("admission failed", "err", err)
	if errors.Is(err, admission.ErrPatchFailed) || errors.Is(err, admission.ErrInvalidResult) ||
		errors.Is(err, admission.ErrValidatingPatch) {
		return apierrors.NewInternalError(fmt.Errorf("admission returned an unusable answer: %w", err))
	}
	return apierror.Unavailable("admission is temporarily unavailable, please retry", 0)
}

// on reports whether any admission stage is configured, so that writes
// without admission skip encoding objects for it.
func (a admitters) on() bool { return a.mutating != nil || a.validating != nil }
