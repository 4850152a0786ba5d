package handler

import (
	"context"
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

// Admission is the admission stage every write passes (create, update,
// patch, apply, delete, each item of a deletecollection, status and scale
// writes, actions, CONNECT), run as kube-apiserver runs its mutating then
// its validating webhooks. A nil admitter skips its phase, as kube runs
// with no admission plugin. It is the registry package's Admission.
type Admission struct {
	// Mutating is asked first and may patch the object; its patch is
	// applied before the registry's own defaulting and validation, so it
	// cannot store an invalid object.
	Mutating admission.Admitter
	// Validating sees the object that will be stored and only decides: a
	// patch from it is a broken contract.
	Validating admission.Admitter
	// Rules, when set, are the writes each phase wants (the admission
	// service publishes them): a phase is asked only about writes they
	// match, as kube calls a webhook only about what its configuration's
	// rules match, so that a write no plugin looks at costs neither the
	// encoding of its objects nor a round trip. While they are unknown
	// (false) every write is asked about, as it is when Rules is nil.
	Rules func(context.Context) (admission.Rules, bool)
}

// on reports whether any phase is configured, so that writes without
// admission skip building reviews.
func (a Admission) on() bool { return a.Mutating != nil || a.Validating != nil }

// admit asks phase p about rv, whose attributes without objects are attrs.
// A phase that is off, or whose rules match nothing of attrs (their
// namespace conditions checked against states), allows without being
// asked and without rv's objects being encoded. Otherwise the answer is
// held to the Admitter contract; an admitter that gave none is an error
// ready for the client (see admissionError).
func (a Admission) admit(ctx context.Context, p admission.Phase, attrs *admission.Attributes, rv *review,
	states admission.NamespaceStates) (*admission.Result, error) {
	adm := a.Validating
	if p == admission.PhaseMutating {
		adm = a.Mutating
	}
	if adm == nil {
		return admission.Allow(), nil
	}
	if a.Rules != nil {
		if rules, known := a.Rules(ctx); known && !admission.MatchesIn(ctx, states, rules.For(p), attrs) {
			return admission.Allow(), nil
		}
	}
	if err := withObjects(attrs, rv); err != nil {
		return nil, err
	}
	res, err := admission.Ask(ctx, p, adm, attrs)
	if err != nil {
		return nil, admissionError(err)
	}
	return res, nil
}

// review is one question to admission about a write: the fields of an
// AdmissionRequest the registry fills in. Its objects are encoded only once
// a phase is asked about it (see Admission.admit).
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

// mutate asks the mutating phase about rv and returns the object with its
// patch applied, or nil when nothing changed.
func (q *request) mutate(rv *review) ([]byte, error) {
	res, err := q.ask(admission.PhaseMutating, rv)
	if err != nil || len(res.Patch) == 0 {
		return nil, err
	}
	patched, err := admission.ApplyPatch(rv.object, res.Patch)
	if err != nil {
		return nil, admissionError(err)
	}
	return patched, nil
}

// validateAdmission asks the validating phase about rv.
func (q *request) validateAdmission(rv *review) error {
	_, err := q.ask(admission.PhaseValidating, rv)
	return err
}

// ask runs phase p on rv: a denial is its Status; warnings go to the
// client either way.
func (q *request) ask(p admission.Phase, rv *review) (*admission.Result, error) {
	res, err := q.h.adm.admit(q.r.Context(), p, q.attributes(rv), rv, namespaceStates{h: q.h})
	if err != nil {
		return nil, err
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
