package handler

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/services/registry/internal/storage"
)

// listQuery reads the query of a list, watch or deletecollection as kube's
// handlers do. It is decoded by meta's parameter codec, so a limit or
// timeoutSeconds that is not an integer, or a selector that does not
// parse, is 400; then checked by kube's own ListOptions validation (an
// unknown resourceVersionMatch, one without a resourceVersion, one on a
// watch without sendInitialEvents…), which kube answers with 422 Invalid
// for the kind ListOptions.
func (q *request) listQuery() (*internalversion.ListOptions, error) {
	opts := &internalversion.ListOptions{}
	if err := scheme.ParameterCodec.DecodeParameters(q.r.URL.Query(), metav1.SchemeGroupVersion, opts); err != nil {
		return opts, apierrors.NewBadRequest(err.Error())
	}
	// The verb says whether this is a watch: ?watch= or a /watch/ path.
	opts.Watch = q.info.Verb == "watch"
	// The registry serves sendInitialEvents, so the WatchList rules apply.
	if errs := validation.ValidateListOptions(opts, true); len(errs) > 0 {
		return opts, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs)
	}
	// Kube takes a negative limit for no limit and a negative timeout for
	// one already passed; both are more likely a client's bug, so say so.
	if opts.Limit < 0 {
		return opts, apierrors.NewBadRequest(fmt.Sprintf("limit must be a non-negative integer, not %d", opts.Limit))
	}
	if opts.TimeoutSeconds != nil && *opts.TimeoutSeconds < 0 {
		return opts, apierrors.NewBadRequest(fmt.Sprintf("timeoutSeconds must be a non-negative integer, not %d", *opts.TimeoutSeconds))
	}
	return opts, nil
}

// listOptions reads a list's query parameters for the store.
func (q *request) listOptions() (storage.ListOptions, error) {
	opts, err := q.listQuery()
	if err != nil {
		return storage.ListOptions{}, err
	}
	return storeListOptions(opts)
}

// storeListOptions is what the store needs of a list's query.
func storeListOptions(opts *internalversion.ListOptions) (storage.ListOptions, error) {
	sel := storage.Selector{Label: opts.LabelSelector, Field: opts.FieldSelector}
	if sel.Label == nil {
		sel.Label = labels.Everything()
	}
	if sel.Field == nil {
		sel.Field = fields.Everything()
	}
	lopts := storage.ListOptions{
		ReadOptions: storage.ReadOptions{ResourceVersion: opts.ResourceVersion, ResourceVersionMatch: opts.ResourceVersionMatch},
		Selector:    sel, Limit: opts.Limit, Continue: opts.Continue,
	}
	if opts.Continue != "" && opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
		return lopts, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
	}
	return lopts, nil
}
