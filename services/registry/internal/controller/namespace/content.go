package namespace

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/apiresource"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller/internal/worker"
)

// content is what one pass over a namespace's content found.
type content struct {
	// discoveryErr means some resources could not be discovered, so the
	// namespace may hold objects this pass could not see.
	discoveryErr error
	// deleteErrs are the deletes and lists that failed.
	deleteErrs []error
	// remaining counts the objects left, by resource.
	remaining map[string]int
	// finalizers counts the objects left, by finalizer they still carry.
	finalizers map[string]int
}

// err says why the namespace cannot be finalized yet: a real failure, or
// ErrPending while objects are still going away.
func (c content) err() error {
	if c.discoveryErr != nil || len(c.deleteErrs) > 0 {
		return errors.Join(append([]error{c.discoveryErr}, c.deleteErrs...)...)
	}
	if len(c.remaining) > 0 {
		return fmt.Errorf("%w: %s", worker.ErrPending, countList(c.remaining))
	}
	return nil
}

// deleteContent deletes every namespaced object in ns, in every resource
// the API serves that can be listed and deleted, and counts what is left.
func (c *Controller) deleteContent(ctx context.Context, ns string) content {
	out := content{remaining: map[string]int{}, finalizers: map[string]int{}}
	set, err := apiresource.Discover(ctx, c.discovery)
	if err != nil {
		out.discoveryErr = err
		return out
	}
	if len(set.Failed) > 0 {
		out.discoveryErr = fmt.Errorf("discovery failed for %v", slices.Collect(maps.Keys(set.Failed)))
	}
	for _, r := range set.Filter(deletable) {
		left, err := c.deleteAll(ctx, r, ns)
		if err != nil {
			out.deleteErrs = append(out.deleteErrs, fmt.Errorf("%s: %w", r.GroupResource(), err))
			continue
		}
		for _, obj := range left {
			out.remaining[r.GroupResource().String()]++
			for _, f := range obj.GetFinalizers() {
				out.finalizers[f]++
			}
		}
	}
	return out
}

// deletable selects the resources a namespace's content lives in.
func deletable(r apiresource.Resource) bool {
	return r.Namespaced && r.Can("list", "delete")
}

// deleteAll deletes every object of r in ns, with one deletecollection
// where the resource supports it and one delete an object where not, and
// returns what is still there afterwards (objects held by finalizers).
func (c *Controller) deleteAll(ctx context.Context, r apiresource.Resource, ns string) ([]unstructured.Unstructured, error) {
	client := c.dynamic.Resource(r.GroupVersionResource).Namespace(ns)
	// Background, as kube does: dependents are the garbage collector's
	// business, and would be deleted by this very loop anyway.
	background := metav1.DeletePropagationBackground
	opts := metav1.DeleteOptions{PropagationPolicy: &background}
	if r.Can("deletecollection") {
		err := client.DeleteCollection(ctx, opts, metav1.ListOptions{})
		if err == nil {
			return listItems(ctx, client)
		}
		if !apierrors.IsMethodNotSupported(err) && !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	items, err := listItems(ctx, client)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, obj := range items {
		if obj.GetDeletionTimestamp() != nil {
			continue
		}
		err := client.Delete(ctx, obj.GetName(), opts)
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return listItems(ctx, client)
}

// lister is the part of a dynamic resource client listItems needs.
type lister interface {
	List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error)
}

// listItems lists a resource in a namespace; a resource that vanished
// since discovery (a CRD deleted meanwhile) holds nothing.
func listItems(ctx context.Context, client lister) ([]unstructured.Unstructured, error) {
	list, err := client.List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// countList renders counts as "a: 1, b: 2" in a stable order.
func countList(counts map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s: %d", k, counts[k]))
	}
	return strings.Join(parts, ", ")
}
