package handler

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// writeOptions is what the query of a create, update or patch asks for.
type writeOptions struct {
	dryRun          bool
	fieldManager    string
	fieldValidation string
	// force is apply's ?force. Like kube, any value but "false" and "0"
	// forces.
	force bool
}

// writeQuery reads the query of a write as kube's handlers do: decoded by
// the meta API's parameter codec into CreateOptions, UpdateOptions or
// PatchOptions (a value that does not decode is 400), then checked by
// kube's own validation of those options, answered 422 Invalid for the
// options' kind: a fieldManager over 128 characters or with unprintable
// ones, a dryRun other than All, an unknown fieldValidation, force on a
// patch that is not an apply, an apply without a fieldManager.
func (q *request) writeQuery() (writeOptions, error) {
	switch q.info.Verb {
	case "patch":
		var o metav1.PatchOptions
		if err := q.decodeQuery(&o); err != nil {
			return writeOptions{}, err
		}
		opts := writeOptions{dryRun: len(o.DryRun) > 0, fieldManager: o.FieldManager, fieldValidation: o.FieldValidation,
			force: o.Force != nil && *o.Force}
		return opts, invalidOptions("PatchOptions", validation.ValidatePatchOptions(&o, types.PatchType(contentType(q.r))))
	case "update":
		var o metav1.UpdateOptions
		if err := q.decodeQuery(&o); err != nil {
			return writeOptions{}, err
		}
		opts := writeOptions{dryRun: len(o.DryRun) > 0, fieldManager: o.FieldManager, fieldValidation: o.FieldValidation}
		return opts, invalidOptions("UpdateOptions", validation.ValidateUpdateOptions(&o))
	}
	var o metav1.CreateOptions
	if err := q.decodeQuery(&o); err != nil {
		return writeOptions{}, err
	}
	opts := writeOptions{dryRun: len(o.DryRun) > 0, fieldManager: o.FieldManager, fieldValidation: o.FieldValidation}
	return opts, invalidOptions("CreateOptions", validation.ValidateCreateOptions(&o))
}

// decodeQuery reads the request's query into options.
func (q *request) decodeQuery(options runtime.Object) error {
	if err := metainternalversionscheme.ParameterCodec.DecodeParameters(q.r.URL.Query(), metav1.SchemeGroupVersion, options); err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	return nil
}

// invalidOptions is kube's answer to options that fail their validation.
func invalidOptions(kind string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs)
}
