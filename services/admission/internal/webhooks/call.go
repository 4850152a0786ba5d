package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
	"github.com/kubesplit/kubesplit/services/admission/internal/selector"
)

// callError is kube's ErrCallingWebhook: the webhook could not be asked or
// gave no usable answer. Only these are subject to the failure policy.
type callError struct {
	webhook string
	err     error
}

func (e *callError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.webhook, e.err)
}

func (e *callError) Unwrap() error { return e.err }

// shouldCall is kube's ShouldCallHook: what h is asked about a (a, or a
// converted to an equivalent resource: see invocationFor), checking
// namespaceSelector, objectSelector and rules, then matchConditions; nil
// when h does not want a. A non-nil Result is the request's denial: a
// namespace that cannot be looked up, a selector that does not parse, an
// object that cannot be converted, or (failurePolicy Fail) match
// conditions that cannot be evaluated.
func (d *dispatcher) shouldCall(ctx context.Context, h *hook, a *admission.Attributes) (*invocation, *admission.Result) {
	nsMatch, nsErr := d.namespaces.Match(ctx, h.namespaceSelector, a)
	if !nsMatch && nsErr == nil {
		return nil, nil
	}
	if !selector.Object(h.objectSelector, a) {
		return nil, nil
	}
	inv, err := d.invocationFor(ctx, h, a)
	if inv == nil && err == nil {
		return nil, nil
	}
	var notFound *apierrors.StatusError
	switch {
	case apierrors.IsNotFound(nsErr) && errors.As(nsErr, &notFound):
		return nil, plugin.StatusResult(notFound)
	case nsErr != nil:
		return nil, plugin.StatusResult(apierrors.NewInternalError(nsErr))
	case h.selectorErr != nil:
		return nil, plugin.StatusResult(apierrors.NewInternalError(h.selectorErr))
	case err != nil:
		return nil, plugin.StatusResult(apierrors.NewInternalError(err))
	}
	ok, err := h.conditions.match(ctx, func() (map[string]any, error) { return celVariables(inv.attrs) })
	if err != nil {
		if h.ignoreFailures {
			return nil, nil
		}
		gr := schema.GroupResource{Group: a.Resource.Group, Resource: a.Resource.Resource}
		return nil, plugin.StatusResult(apierrors.NewForbidden(gr, a.Name, err))
	}
	if !ok {
		return nil, nil
	}
	return inv, nil
}

// call asks h about a. The error is a *callError (subject to the failure
// policy) or a *apierrors.StatusError (the request's answer whatever the
// policy); a Result is the webhook's answer, its denial worded as kube
// words it.
func call(ctx context.Context, h *hook, a *admission.Attributes, mutating bool) (*admission.Result, error) {
	if a.DryRun && h.sideEffectsOnDryRun {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("admission webhook %q does not support dry run", h.name))
	}
	if h.clientErr != nil {
		return nil, &callError{webhook: h.name, err: fmt.Errorf("could not get REST client: %w", h.clientErr)}
	}
	res, err := h.client.Admit(ctx, a)
	if err != nil {
		return nil, &callError{webhook: h.name, err: fmt.Errorf("failed to call webhook: %w", err)}
	}
	if !mutating && len(res.Patch) > 0 {
		return nil, &callError{webhook: h.name, err: errors.New("received invalid webhook response: validating webhook may not return response.patch")}
	}
	out := *res
	out.AuditAnnotations = prefixed(h.name, res.AuditAnnotations)
	if !res.Allowed {
		out.Patch, out.Status = nil, denial(h.name, res.Status)
	}
	return &out, nil
}

// denial is kube's ToStatusErr: the webhook's status, at least 400 and
// Failure, its message prefixed with who denied the request.
func denial(webhook string, status *metav1.Status) *metav1.Status {
	s := metav1.Status{Status: metav1.StatusFailure}
	if status != nil {
		s = *status
	}
	if s.Code < http.StatusBadRequest {
		s.Code = http.StatusBadRequest
	}
	if s.Status == "" || s.Status == metav1.StatusSuccess {
		s.Status = metav1.StatusFailure
	}
	deniedBy := fmt.Sprintf("admission webhook %q denied the request", webhook)
	switch {
	case s.Message != "":
		s.Message = deniedBy + ": " + s.Message
	case s.Reason != "":
		s.Message = deniedBy + ": " + string(s.Reason)
	default:
		s.Message = deniedBy + " without explanation"
	}
	return &s
}

// prefixed are a webhook's audit annotations under its name, as kube
// records them, so that two webhooks cannot overwrite each other's.
func prefixed(webhook string, annotations map[string]string) map[string]string {
	if len(annotations) == 0 {
		return nil
	}
	out := make(map[string]string, len(annotations))
	for k, v := range annotations {
		out[webhook+"/"+k] = v
	}
	return out
}

// failed turns a failed call into the request's denial, or nil when the
// failure policy ignores it: an error calling the webhook is an internal
// error under Fail; any other error is the answer whatever the policy.
func failed(h *hook, err error) *admission.Result {
	var ce *callError
	if errors.As(err, &ce) {
		if h.ignoreFailures {
			return nil
		}
		return plugin.StatusResult(apierrors.NewInternalError(err))
	}
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		return plugin.StatusResult(se)
	}
	return plugin.StatusResult(apierrors.NewInternalError(err))
}
