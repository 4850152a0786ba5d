package authz

import (
	"context"
	"fmt"

	"k8s.io/kubernetes/pkg/auth/authorizer/abac"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/services/authz/internal/kubeauthz"
)

// newABACMode is kube's ABAC over the policy file
// (--authorization-policy-file, one JSON policy a line), evaluated by
// kube's own code: a request a policy line matches is allowed, any other
// gets NoOpinion. Unlike kube-apiserver, which reads the file once, the
// file is reloaded when it changes.
func newABACMode(ctx context.Context, cfg Config, revs *policyRevisions) (mode, error) {
	if cfg.PolicyFile == "" {
		return mode{}, fmt.Errorf("%w: the ABAC mode needs a policy file (--authorization-policy-file)", ErrInvalidConfig)
	}
	return newFilePolicy(ctx, cfg, revs, []string{cfg.PolicyFile}, func([][]byte) (authz.Authorizer, error) {
		// kube's loader reads the file itself; a change after the
		// watch read it is seen on the next poll.
		policies, err := abac.NewFromFile(cfg.PolicyFile)
		if err != nil {
			return nil, fmt.Errorf("ABAC policy file: %w", err)
		}
		return kubeauthz.Adapt(policies), nil
	})
}
