package admission

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Admitter decides whether a write may proceed and, if it is mutating, how
// the object changes first.
//
// It returns a Result when it decided (allowed or denied) and a nil Result
// with an error when it could not (a policy store or a remote webhook is
// down), so that callers fail closed without blaming the client.
type Admitter interface {
	Admit(ctx context.Context, a *Attributes) (*Result, error)
}

// AdmitterFunc lets an ordinary function be an Admitter. Wrap it in Mutating
// if it returns patches.
type AdmitterFunc func(ctx context.Context, a *Attributes) (*Result, error)

// Admit calls f.
func (f AdmitterFunc) Admit(ctx context.Context, a *Attributes) (*Result, error) {
	return f(ctx, a)
}

// Result is an admitter's decision, with the fields of kube's
// AdmissionResponse apart from the request uid.
type Result struct {
	// Allowed admits the write; false denies it.
	Allowed bool

	// Status explains a denial to the client, as kube's webhooks return it:
	// code (400 or above), reason and message. Nil on an allow; a denial
	// without one is reported as kube reports it (see StatusError).
	Status *metav1.Status

	// Patch is an RFC 6902 JSON patch (a JSON array of operations) to apply
	// to Attributes.Object before it is stored. Only a mutating admitter
	// may set it, and only on an allow; empty means no change.
	Patch []byte

	// Warnings are shown to the client (kubectl prints them), allowed or
	// not.
	Warnings []string

	// AuditAnnotations are added to the request's audit event.
	AuditAnnotations map[string]string
}

// Allow is an allow without a patch.
func Allow() *Result {
	return &Result{Allowed: true}
}

// Deny is a denial with an HTTP code (400 or above) and a message for the
// client; the Status reason is the one Kubernetes uses for that code.
func Deny(code int32, message string) *Result {
	return &Result{Status: &metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    code,
		Reason:  reasonFor(code),
		Message: message,
	}}
}
