package authz

import (
	"context"
	"fmt"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/services/authz/internal/casbinpolicy"
)

// newCasbinMode decides with the user's own casbin model and policy
// (--casbin-model, --casbin-policy), both reloaded when either changes;
// casbinpolicy documents how a review fills the model's request.
func newCasbinMode(ctx context.Context, cfg Config, revs *policyRevisions) (mode, error) {
	if cfg.CasbinModel == "" || cfg.CasbinPolicy == "" {
		return mode{}, fmt.Errorf("%w: the Casbin mode needs a model and a policy file (--casbin-model, --casbin-policy)", ErrInvalidConfig)
	}
	return newFilePolicy(ctx, cfg, revs, []string{cfg.CasbinModel, cfg.CasbinPolicy}, func(c [][]byte) (authz.Authorizer, error) {
		return casbinpolicy.New(string(c[0]), string(c[1]))
	})
}
