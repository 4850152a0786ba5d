package authz

import (
	"context"
	"fmt"
	"sync/atomic"

	authenticationv1 "k8s.io/api/authentication/v1"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/services/authz/internal/filewatch"
)

// buildFunc makes an authorizer of a policy's files, given their contents
// in the order of their paths; an error refuses the policy.
type buildFunc func(contents [][]byte) (authz.Authorizer, error)

// newFilePolicy is an engine over policy files that are reloaded when
// they change (ABAC's policy file, a casbin model and policy): the files
// are read and built now, a policy that does not build stops the start,
// and each later version that builds replaces the last and moves the
// revision, so the aggregator drops the answers of the old one. A later
// version that does not build is logged and changes nothing.
//
// The mode's rules are the current policy's, when it can list them.
func newFilePolicy(ctx context.Context, cfg Config, revs *policyRevisions, paths []string, build buildFunc) (mode, error) {
	var current atomic.Pointer[authz.Authorizer]
	load := func(contents [][]byte) error {
		a, err := build(contents)
		if err != nil {
			return err
		}
		current.Store(&a)
		return nil
	}
	source := revs.source()
	if err := filewatch.Watch(ctx, paths, cfg.PolicyReloadInterval, load, source.Bump, cfg.Log); err != nil {
		return mode{}, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	source.Bump()
	return mode{
		authorizer: authz.AuthorizerFunc(func(ctx context.Context, a authz.Attributes) (authz.Result, error) {
			return (*current.Load()).Authorize(ctx, a)
		}),
		rules: func(user authenticationv1.UserInfo, namespace string) ruleSet {
			if list := listedRules(*current.Load()); list != nil {
				return list(user, namespace)
			}
			return ruleSet{incomplete: true}
		},
	}, nil
}
