package handler

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// scale serves the scale subresource: a resource's replica count seen as an
// autoscaling/v1 Scale, read and written by kubectl scale and autoscalers.
func (q *request) scale() error {
	out, err := q.output()
	if err != nil {
		return err
	}
	if q.info.Verb == "get" {
		cur, err := q.store.Get(q.r.Context(), q.info.Namespace, q.info.Name, q.readOptions())
		if err != nil {
			return err
		}
		return q.sendScale(out, cur)
	}
	if q.info.Verb != "update" && q.info.Verb != "patch" {
		return apierrors.NewMethodNotSupported(q.groupResource(), q.r.Method)
	}
	wr, err := q.newWrite()
	if err != nil {
		return err
	}
	body, err := readBody(q.r)
	if err != nil {
		return err
	}
	stored, err := q.store.Update(q.r.Context(), q.info.Namespace, q.info.Name, func(cur *storage.Object) (*unstructured.Unstructured, error) {
		live := cur.Decode()
		want, err := q.requestedScale(live, body)
		if err != nil {
			return nil, err
		}
		old, err := scaleOf(q.res.Scale, live)
		if err != nil {
			return nil, err
		}
		if want, err = q.mutateScale(wr, want, old); err != nil {
			return nil, err
		}
		next := live.DeepCopy()
		if err := setScale(q.res.Scale, next, want); err != nil {
			return nil, err
		}
		if err := q.prepareUpdated(next, live); err != nil {
			return nil, err
		}
		if err := q.trackFields(wr, live, next); err != nil {
			return nil, err
		}
		if err := q.validate(wr, next, live); err != nil {
			return nil, err
		}
		return next, q.validateScale(wr, next, old)
	}, wr.dryRun)
	if err != nil {
		return err
	}
	return q.sendScale(out, stored)
}

// requestedScale is the Scale a PUT sends, or the current one patched.
func (q *request) requestedScale(live *unstructured.Unstructured, body []byte) (*autoscalingv1.Scale, error) {
	cur, err := scaleOf(q.res.Scale, live)
	if err != nil {
		return nil, err
	}
	want := &autoscalingv1.Scale{}
	if q.info.Verb == "update" {
		if _, _, err := resource.Codecs.UniversalDeserializer().Decode(body, nil, want); err != nil {
			return nil, apierrors.NewBadRequest("the body is not a valid autoscaling/v1 Scale: " + err.Error())
		}
	} else {
		curJSON, _ := json.Marshal(cur)
		patched, err := patchJSON(&autoscalingv1.Scale{}, types.PatchType(contentType(q.r)), curJSON, body)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(patched, want); err != nil {
			return nil, apierrors.NewBadRequest("the patched Scale is not valid: " + err.Error())
		}
	}
	if rv := want.ResourceVersion; rv != "" && rv != cur.ResourceVersion {
		return nil, apierrors.NewConflict(q.groupResource(), q.info.Name,
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	if want.Spec.Replicas < 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: "autoscaling", Kind: "Scale"}, q.info.Name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "replicas"), want.Spec.Replicas, "must be greater than or equal to 0")})
	}
	return want, nil
}

func (q *request) sendScale(out output, obj *storage.Object) error {
	s, err := scaleOf(q.res.Scale, obj.Decode())
	if err != nil {
		return err
	}
	q.written = true
	if out.as != "" {
		out = output{media: mediaJSON}
	}
	return writeTyped(q.w, http.StatusOK, out.media, s)
}

// scaleOf reads an object's Scale.
func scaleOf(spec *resource.Scale, obj *unstructured.Unstructured) (*autoscalingv1.Scale, error) {
	s := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{Name: obj.GetName(), Namespace: obj.GetNamespace(), UID: obj.GetUID(),
			ResourceVersion: obj.GetResourceVersion(), CreationTimestamp: obj.GetCreationTimestamp()},
	}
	s.Spec.Replicas = int32(intAt(obj, spec.SpecReplicasPath))
	s.Status.Replicas = int32(intAt(obj, spec.StatusReplicasPath))
	selector, err := selectorAt(obj, spec.LabelSelectorPath)
	if err != nil {
		return nil, err
	}
	s.Status.Selector = selector
	return s, nil
}

// setScale writes a Scale's replica count into the object.
func setScale(spec *resource.Scale, obj *unstructured.Unstructured, s *autoscalingv1.Scale) error {
	return unstructured.SetNestedField(obj.Object, int64(s.Spec.Replicas), fieldPath(spec.SpecReplicasPath)...)
}

func fieldPath(dotted string) []string { return strings.Split(strings.TrimPrefix(dotted, "."), ".") }

func intAt(obj *unstructured.Unstructured, path string) int64 {
	if path == "" {
		return 0
	}
	v, _, _ := unstructured.NestedFieldNoCopy(obj.Object, fieldPath(path)...)
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return 0
}

// selectorAt formats the selector at path: a string as it is, a
// LabelSelector in its string form.
func selectorAt(obj *unstructured.Unstructured, path string) (string, error) {
	if path == "" {
		return "", nil
	}
	v, found, _ := unstructured.NestedFieldNoCopy(obj.Object, fieldPath(path)...)
	if !found {
		return "", nil
	}
	if s, ok := v.(string); ok {
		return s, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return "", nil
	}
	ls := &metav1.LabelSelector{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, ls); err != nil {
		return "", err
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return "", err
	}
	return sel.String(), nil
}
