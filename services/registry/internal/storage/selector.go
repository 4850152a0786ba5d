package storage

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// Selector is what a list or watch asks for by label and field.
type Selector struct {
	Label labels.Selector
	Field fields.Selector
}

// matcher returns the function that tells whether an object matches, or a
// BadRequest for a field selector on a field the resource does not support.
func (sel Selector) matcher(info *resource.Info) (func(*Object) bool, error) {
	lbl, fld := sel.Label, sel.Field
	if lbl == nil {
		lbl = labels.Everything()
	}
	if fld == nil {
		fld = fields.Everything()
	}
	converted, err := fieldsOf(info, fld)
	if err != nil {
		return nil, err
	}
	if lbl.Empty() && fld.Empty() {
		return func(*Object) bool { return true }, nil
	}
	if s := info.Strategy; s != nil && !onlyMeta(fld) {
		fld = converted
		compute := func(o *Object) (fields.Set, error) { return s.FieldSet(o.Decode()) }
		return func(o *Object) bool {
			if !lbl.Matches(labels.Set(o.Labels())) {
				return false
			}
			set, err := o.selectable(info, compute)
			return err == nil && fld.Matches(set)
		}, nil
	}
	if len(info.SelectableFields) == 0 || onlyMeta(fld) {
		return func(o *Object) bool {
			return lbl.Matches(labels.Set(o.Labels())) && fld.Matches(metaFields(info, o))
		}, nil
	}
	compute := func(o *Object) (fields.Set, error) { return fieldSet(info, o), nil }
	return func(o *Object) bool {
		if !lbl.Matches(labels.Set(o.Labels())) {
			return false
		}
		set, _ := o.selectable(info, compute)
		return fld.Matches(set)
	}, nil
}

// fieldsOf checks a field selector against what the resource can select
// on and returns it with kube's names for the fields (events.k8s.io's
// regarding.kind is core's involvedObject.kind); a field it cannot select
// on, or an operator other than =, == and !=, is 400.
func fieldsOf(info *resource.Info, fld fields.Selector) (fields.Selector, error) {
	if err := checkOperators(fld); err != nil {
		return nil, err
	}
	if s := info.Strategy; s != nil {
		converted, err := fld.Transform(s.ConvertFieldLabel)
		if err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return converted, nil
	}
	for _, req := range fld.Requirements() {
		if !selectable(info, req.Field) {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("field label not supported: %s", req.Field))
		}
	}
	return fld, nil
}

// onlyMeta reports whether a field selector reads nothing but name and
// namespace, which need no decoding.
func onlyMeta(fld fields.Selector) bool {
	for _, req := range fld.Requirements() {
		if req.Field != "metadata.name" && req.Field != "metadata.namespace" {
			return false
		}
	}
	return true
}

// Empty reports whether the selector matches everything.
func (sel Selector) Empty() bool {
	return (sel.Label == nil || sel.Label.Empty()) && (sel.Field == nil || sel.Field.Empty())
}

func checkOperators(fld fields.Selector) error {
	for _, req := range fld.Requirements() {
		if req.Operator != selection.Equals && req.Operator != selection.DoubleEquals && req.Operator != selection.NotEquals {
			return apierrors.NewBadRequest(fmt.Sprintf("unsupported operator %q in field selector", req.Operator))
		}
	}
	return nil
}

func selectable(info *resource.Info, field string) bool {
	if field == "metadata.name" || field == "metadata.namespace" {
		return true
	}
	for _, f := range info.SelectableFields {
		if f == field {
			return true
		}
	}
	return false
}

// metaFields are o's name and namespace as a field set.
func metaFields(info *resource.Info, o *Object) fields.Set {
	set := fields.Set{"metadata.name": o.Name()}
	if info.Namespaced {
		set["metadata.namespace"] = o.Namespace()
	}
	return set
}

// fieldSet is the set of selectable fields of o, as strings. Only fields
// beyond name and namespace need the object decoded.
func fieldSet(info *resource.Info, o *Object) fields.Set {
	set := metaFields(info, o)
	if len(info.SelectableFields) == 0 {
		return set
	}
	obj := o.Decode()
	for _, f := range info.SelectableFields {
		v, found, _ := unstructured.NestedFieldNoCopy(obj.Object, strings.Split(f, ".")...)
		if found && v != nil {
			set[f] = fmt.Sprint(v)
		} else {
			set[f] = ""
		}
	}
	return set
}
