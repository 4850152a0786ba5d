package request

import (
	"context"

	authenticationv1 "k8s.io/api/authentication/v1"
)

type userKey struct{}

// WithUser returns a copy of ctx that carries u, the user a request acts
// as once authenticated and impersonation applied. The user is the type
// the stage protocols carry (TokenReview, SubjectAccessReview,
// AdmissionReview), so no stage converts it on its way; pkg/kubeuser turns
// it into kube's user.Info for kube's own code.
func WithUser(ctx context.Context, u authenticationv1.UserInfo) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user WithUser put in ctx, false when none was.
func UserFrom(ctx context.Context) (authenticationv1.UserInfo, bool) {
	u, ok := ctx.Value(userKey{}).(authenticationv1.UserInfo)
	return u, ok
}
