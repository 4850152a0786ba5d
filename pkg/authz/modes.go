package authz

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The authorization modes, named as kube-apiserver's --authorization-mode
// values: the aggregator's --authorization-mode and the authz service's
// engines read the same names.
const (
	ModeAlwaysAllow = "AlwaysAllow"
	ModeAlwaysDeny  = "AlwaysDeny"
	// ModeWebhook is a SubjectAccessReview webhook: at the aggregator the
	// authz service, in the authz service a further webhook.
	ModeWebhook = "Webhook"
	ModeRBAC    = "RBAC"
	ModeNode    = "Node"
	ModeABAC    = "ABAC"
	// ModeCasbin is kubesplit's own: the user's casbin model and policy.
	ModeCasbin = "Casbin"
)

// CheckModes checks an --authorization-mode list as kube-apiserver does:
// at least one mode, each one of known's keys, none twice. The error names
// the known modes.
func CheckModes[V any](modes []string, known map[string]V) error {
	if len(modes) == 0 {
		return fmt.Errorf("no authorization mode")
	}
	for i, m := range modes {
		if _, ok := known[m]; !ok {
			return fmt.Errorf("unknown authorization mode %q (known: %s)", m, strings.Join(slices.Sorted(maps.Keys(known)), ","))
		}
		if slices.Contains(modes[:i], m) {
			return fmt.Errorf("authorization mode %q given twice", m)
		}
	}
	return nil
}
