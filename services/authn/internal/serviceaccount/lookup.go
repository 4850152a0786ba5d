package serviceaccount

import "context"

// Lookup tells whether a service account exists, and its uid.
//
// It returns found == false when the account does not exist (or is being
// deleted), and an error only when it could not tell, so that callers fail
// closed instead of treating an outage as a deleted account or a live one.
type Lookup interface {
	ServiceAccount(ctx context.Context, namespace, name string) (uid string, found bool, err error)
}

// LookupFunc adapts a function to the Lookup interface.
type LookupFunc func(ctx context.Context, namespace, name string) (uid string, found bool, err error)

// ServiceAccount calls f.
func (f LookupFunc) ServiceAccount(ctx context.Context, namespace, name string) (string, bool, error) {
	return f(ctx, namespace, name)
}
