package handler

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/yaml"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// maxJSONPatchOps bounds a JSON patch, so one request cannot make the
// server do unbounded work.
const maxJSONPatchOps = 10000

func (q *request) patch() error {
	if err := q.namespaceOK(); err != nil {
		return err
	}
	wr, err := q.newWrite()
	if err != nil {
		return err
	}
	kind := types.PatchType(contentType(q.r))
	switch kind {
	case types.JSONPatchType, types.MergePatchType, types.StrategicMergePatchType, types.ApplyYAMLPatchType:
	default:
		return unsupportedMedia(string(kind))
	}
	body, err := readBody(q.r)
	if err != nil {
		return err
	}
	if kind == types.ApplyYAMLPatchType {
		return q.apply(wr, body)
	}
	stored, err := q.store.Update(q.r.Context(), q.info.Namespace, q.info.Name, func(cur *storage.Object) (*unstructured.Unstructured, error) {
		live := cur.Decode()
		typed, _ := resource.Typed(q.res.GroupVersionKind())
		patched, err := patchJSON(typed, kind, cur.JSON, body)
		if err != nil {
			return nil, err
		}
		obj, strictErrs, err := objectFromJSON(q.res, patched)
		if err != nil {
			return nil, err
		}
		if wr.warnings, err = fieldProblems(wr.mode, strictErrs); err != nil {
			return nil, err
		}
		if obj.GetName() != q.info.Name || obj.GetNamespace() != live.GetNamespace() {
			return nil, apierrors.NewBadRequest("a patch may not change the name or namespace of an object")
		}
		if err := q.preconditions(obj, live); err != nil {
			return nil, err
		}
		if err := q.unconditional(obj, live); err != nil {
			return nil, err
		}
		return obj, q.admitUpdate(wr, obj, live)
	}, wr.dryRun)
	q.settle(wr, stored, err)
	if err != nil {
		return err
	}
	return q.finish(wr, http.StatusOK, stored)
}

// patchJSON applies a JSON, merge or strategic merge patch to an object's
// JSON; typed is the Go type strategic merge patches follow, nil for kinds
// without one, which do not accept them.
func patchJSON(typed runtime.Object, kind types.PatchType, cur, patch []byte) ([]byte, error) {
	out, err := applyPatch(typed, kind, cur, patch)
	if err != nil {
		return nil, err
	}
	return out, checkPatchedSize(out)
}

// applyPatch is patchJSON without the bound on what it produces. The work
// of a JSON patch is bounded as it runs: its operations by
// maxJSONPatchOps, its copies by maxPatchCopyBytes (patchlimit.go); merge
// patches cannot copy, so produce at most the object and the patch; a
// strategic merge patch's list merging is bounded before it starts
// (smpwork.go).
func applyPatch(typed runtime.Object, kind types.PatchType, cur, patch []byte) ([]byte, error) {
	if err := checkDepth(patch); err != nil {
		return nil, err
	}
	switch kind {
	case types.JSONPatchType:
		p, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, apierrors.NewBadRequest("invalid JSON patch: " + err.Error())
		}
		if len(p) > maxJSONPatchOps {
			return nil, apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("the JSON patch has %d operations, more than %d", len(p), maxJSONPatchOps))
		}
		out, err := p.Apply(cur)
		// kube answers this 422 with a generic message; the library's
		// says which limit the patch ran into.
		if tooMuch := new(jsonpatch.AccumulatedCopySizeError); errors.As(err, &tooMuch) {
			return nil, apierrors.NewRequestEntityTooLargeError(err.Error())
		}
		if err != nil {
			return nil, apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
		}
		return out, nil
	case types.MergePatchType:
		out, err := jsonpatch.MergePatch(cur, patch)
		if err != nil {
			return nil, apierrors.NewBadRequest("invalid merge patch: " + err.Error())
		}
		return out, nil
	}
	if typed == nil {
		return nil, unsupportedMedia(string(kind))
	}
	var m map[string]any
	if err := json.Unmarshal(patch, &m); err != nil {
		return nil, apierrors.NewBadRequest("invalid strategic merge patch: " + err.Error())
	}
	if err := checkSMPWork(typed, cur, patch); err != nil {
		return nil, err
	}
	out, err := strategicpatch.StrategicMergePatch(cur, patch, typed)
	if err != nil {
		return nil, apierrors.NewBadRequest("invalid strategic merge patch: " + err.Error())
	}
	return out, nil
}

// apply is server-side apply: the body is the caller's whole intent for the
// fields it manages, merged into the live object, creating it if absent.
func (q *request) apply(wr *write, body []byte) error {
	// newWrite already refused an apply without a fieldManager (422, as
	// kube's PatchOptions validation does).
	force := wr.force
	if err := checkYAMLExpansion(body, maxPatchedBytes); err != nil {
		return err
	}
	data, err := yaml.YAMLToJSON(body)
	if err != nil {
		return apierrors.NewBadRequest("the apply body is not valid YAML: " + err.Error())
	}
	if err := checkPatchedSize(data); err != nil {
		return err
	}
	intent, strictErrs, err := applyIntent(q.res, data)
	if err != nil {
		return err
	}
	// Kube applies before it reports unknown fields: an apply its type
	// converter refuses fails as such whatever fieldValidation says.
	problems := func() error {
		dups, err := applyDuplicates(wr.mode, body)
		if err != nil {
			return err
		}
		wr.warnings, err = fieldProblems(wr.mode, strictErrs)
		wr.warnings = append(dups, wr.warnings...)
		return err
	}
	if intent.GetName() != q.info.Name {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", intent.GetName(), q.info.Name))
	}
	// The intent is applied as sent: kube names its namespace in errors
	// only when the body gives one, and sets it on the object after.
	bodyNamespace := intent.GetNamespace()
	if err := q.matchNamespace(intent); err != nil {
		return err
	}
	intent.SetNamespace(bodyNamespace)
	fm, err := q.h.fields.get(q.res, q.info.Subresource)
	if err != nil {
		return err
	}
	ctx := q.r.Context()
	if _, err := q.store.Get(ctx, q.info.Namespace, q.info.Name, storage.ReadOptions{}); apierrors.IsNotFound(err) && q.info.Subresource == "" {
		empty := &unstructured.Unstructured{Object: map[string]any{}}
		empty.SetGroupVersionKind(q.res.GroupVersionKind())
		applied, err := fm.Apply(empty, intent, wr.manager, force)
		if err != nil {
			return asStatus(err)
		}
		if err := problems(); err != nil {
			return err
		}
		obj := applied.(*unstructured.Unstructured)
		if err := q.matchNamespace(obj); err != nil {
			return err
		}
		if err := q.prepareCreate(obj); err != nil {
			return err
		}
		if err := q.checkCreate(wr, obj); err != nil {
			q.settle(wr, nil, err)
			return err
		}
		stored, err := q.store.Create(ctx, obj, wr.dryRun)
		q.settle(wr, stored, err)
		if err != nil {
			return err
		}
		return q.finish(wr, http.StatusCreated, stored)
	}
	stored, err := q.store.Update(ctx, q.info.Namespace, q.info.Name, func(cur *storage.Object) (*unstructured.Unstructured, error) {
		live := cur.Decode()
		if err := q.preconditions(intent, live); err != nil {
			return nil, err
		}
		applied, err := fm.Apply(live.DeepCopy(), intent.DeepCopy(), wr.manager, force)
		if err != nil {
			return nil, asStatus(err)
		}
		if err := problems(); err != nil {
			return nil, err
		}
		obj := applied.(*unstructured.Unstructured)
		if err := q.matchNamespace(obj); err != nil {
			return nil, err
		}
		if err := q.unconditional(obj, live); err != nil {
			return nil, err
		}
		if err := q.prepareUpdated(obj, live); err != nil {
			return nil, err
		}
		return obj, q.checkUpdate(wr, obj, live)
	}, wr.dryRun)
	q.settle(wr, stored, err)
	if err != nil {
		return err
	}
	return q.finish(wr, http.StatusOK, stored)
}

// asStatus is err as kube answers an error its code did not give a
// status: a 500 whose message is the error's alone, with no reason (an
// apply the type converter refuses: "failed to create typed patch object
// (…): .spec.x: field not declared in schema").
func asStatus(err error) error {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return err
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonUnknown, Message: err.Error(),
	}}
}
