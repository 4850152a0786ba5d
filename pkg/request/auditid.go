package request

import "context"

type auditIDKey struct{}

// WithAuditID returns a copy of ctx that carries id, the request's id as
// the client sees it in the Audit-Id header and the audit log records it.
func WithAuditID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, auditIDKey{}, id)
}

// AuditIDFrom returns the id WithAuditID put in ctx, false when none was.
func AuditIDFrom(ctx context.Context) (string, bool) {
	id, ok := ctx.Value(auditIDKey{}).(string)
	return id, ok
}
