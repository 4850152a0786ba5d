package authz

import "context"

// Decision is an authorizer's verdict on one request.
type Decision int

const (
	// DecisionDeny forbids the request; no later authorizer of a chain is
	// asked.
	DecisionDeny Decision = iota
	// DecisionAllow permits the request; no later authorizer of a chain is
	// asked.
	DecisionAllow
	// DecisionNoOpinion leaves the request to the next authorizer of a
	// chain; if nobody decides the request is forbidden.
	DecisionNoOpinion
)

// String names the decision for logs and test failures.
func (d Decision) String() string {
	switch d {
	case DecisionDeny:
		return "Deny"
	case DecisionAllow:
		return "Allow"
	case DecisionNoOpinion:
		return "NoOpinion"
	}
	return "Decision(invalid)"
}

// Result is an authorizer's answer. It is a struct rather than kube's
// (decision, reason) pair because an answer also carries the policy revision
// it was computed at, which the cache needs and the webhook transports.
type Result struct {
	Decision Decision
	// Reason says why, for the user: it ends the 403 message.
	Reason string
	// Revision is the policy revision the answer was computed at; 0 means the
	// authorizer does not version its policy. Revisions only order answers of
	// the same policy source (one authz service and its replicas).
	Revision int64
}

// Authorizer decides whether a request may proceed. An error means the
// authorizer could not fully evaluate its policy; as in kube, it may still
// come with DecisionAllow (a rule that allows was found regardless), and any
// other decision with an error is treated as "no answer" and fails closed.
type Authorizer interface {
	Authorize(ctx context.Context, a Attributes) (Result, error)
}

// AuthorizerFunc lets an ordinary function be an Authorizer.
type AuthorizerFunc func(ctx context.Context, a Attributes) (Result, error)

// Authorize calls f.
func (f AuthorizerFunc) Authorize(ctx context.Context, a Attributes) (Result, error) {
	return f(ctx, a)
}
