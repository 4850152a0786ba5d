package audit

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	"sigs.k8s.io/yaml"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// Policy is an audit.k8s.io/v1 Policy: the first rule that matches a
// request gives its level; a request no rule matches is not audited.
type Policy struct {
	APIVersion        string       `json:"apiVersion"`
	Kind              string       `json:"kind"`
	Rules             []PolicyRule `json:"rules"`
	OmitStages        []Stage      `json:"omitStages,omitempty"`
	OmitManagedFields bool         `json:"omitManagedFields,omitempty"`
}

// PolicyRule is one rule; every list set must match, an empty one matches
// anything.
type PolicyRule struct {
	Level           Level            `json:"level"`
	Users           []string         `json:"users,omitempty"`
	UserGroups      []string         `json:"userGroups,omitempty"`
	Verbs           []string         `json:"verbs,omitempty"`
	Resources       []GroupResources `json:"resources,omitempty"`
	Namespaces      []string         `json:"namespaces,omitempty"`
	NonResourceURLs []string         `json:"nonResourceURLs,omitempty"`
	OmitStages      []Stage          `json:"omitStages,omitempty"`
	// OmitManagedFields overrides the policy's when set.
	OmitManagedFields *bool `json:"omitManagedFields,omitempty"`
}

// GroupResources are resources of one API group; "" is the core group.
type GroupResources struct {
	Group         string   `json:"group,omitempty"`
	Resources     []string `json:"resources,omitempty"`
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// LoadPolicy reads and checks a policy file (YAML or JSON).
func LoadPolicy(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("audit policy: %w", err)
	}
	p := &Policy{}
	if err := yaml.UnmarshalStrict(data, p); err != nil {
		return nil, fmt.Errorf("audit policy %s: %w", path, err)
	}
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("audit policy %s: %w", path, err)
	}
	return p, nil
}

func (p *Policy) validate() error {
	if p.APIVersion != "audit.k8s.io/v1" || p.Kind != "Policy" {
		return fmt.Errorf("want apiVersion audit.k8s.io/v1, kind Policy; got %q, %q", p.APIVersion, p.Kind)
	}
	var errs []error
	for i, r := range p.Rules {
		if _, ok := levelOrder[r.Level]; !ok {
			errs = append(errs, fmt.Errorf("rules[%d].level: unknown level %q", i, r.Level))
		}
		if len(r.NonResourceURLs) > 0 && (len(r.Resources) > 0 || len(r.Namespaces) > 0) {
			errs = append(errs, fmt.Errorf("rules[%d]: nonResourceURLs cannot be combined with resources or namespaces", i))
		}
		errs = append(errs, checkStages(fmt.Sprintf("rules[%d].omitStages", i), r.OmitStages))
	}
	errs = append(errs, checkStages("omitStages", p.OmitStages))
	return errors.Join(errs...)
}

func checkStages(field string, stages []Stage) error {
	for _, s := range stages {
		switch s {
		case StageRequestReceived, StageResponseStarted, StageResponseComplete, StagePanic:
		default:
			return fmt.Errorf("%s: unknown stage %q", field, s)
		}
	}
	return nil
}

// decision is what the policy says of one request.
type decision struct {
	level             Level
	omitStages        []Stage
	omitManagedFields bool
}

// decide is the first matching rule's decision; None when none matches.
func (p *Policy) decide(user authenticationv1.UserInfo, info *requestinfo.Info) decision {
	for _, r := range p.Rules {
		if r.matches(user, info) {
			omit := p.OmitManagedFields
			if r.OmitManagedFields != nil {
				omit = *r.OmitManagedFields
			}
			return decision{level: r.Level, omitStages: slices.Concat(p.OmitStages, r.OmitStages), omitManagedFields: omit}
		}
	}
	return decision{level: LevelNone}
}

func (r PolicyRule) matches(user authenticationv1.UserInfo, info *requestinfo.Info) bool {
	if len(r.Users) > 0 && !slices.Contains(r.Users, user.Username) {
		return false
	}
	if len(r.UserGroups) > 0 && !slices.ContainsFunc(user.Groups, func(g string) bool { return slices.Contains(r.UserGroups, g) }) {
		return false
	}
	if len(r.Verbs) > 0 && !slices.Contains(r.Verbs, info.Verb) {
		return false
	}
	if len(r.Namespaces) > 0 || len(r.Resources) > 0 {
		return info.IsResourceRequest && r.matchesResource(info)
	}
	if len(r.NonResourceURLs) > 0 {
		return !info.IsResourceRequest && slices.ContainsFunc(r.NonResourceURLs, func(u string) bool { return matchesURL(u, info.Path) })
	}
	return true
}

// matchesResource is kube's: the namespace ("" for cluster-scoped), then
// any of the group's resources ("pods", "pods/log", "*/status", "pods/*",
// "*") and names.
func (r PolicyRule) matchesResource(info *requestinfo.Info) bool {
	if len(r.Namespaces) > 0 && !slices.Contains(r.Namespaces, info.Namespace) {
		return false
	}
	if len(r.Resources) == 0 {
		return true
	}
	return slices.ContainsFunc(r.Resources, func(gr GroupResources) bool {
		if gr.Group != info.APIGroup {
			return false
		}
		if len(gr.ResourceNames) > 0 && !slices.Contains(gr.ResourceNames, info.Name) {
			return false
		}
		return len(gr.Resources) == 0 || slices.ContainsFunc(gr.Resources, func(res string) bool {
			return matchesResourceName(res, info.Resource, info.Subresource)
		})
	})
}

func matchesResourceName(pattern, resource, sub string) bool {
	full := resource
	if sub != "" {
		full += "/" + sub
	}
	switch {
	case pattern == "*" || pattern == full:
		return true
	case strings.HasPrefix(pattern, "*/"):
		return sub != "" && pattern[2:] == sub
	case strings.HasSuffix(pattern, "/*"):
		return strings.TrimSuffix(pattern, "/*") == resource
	}
	return false
}

// matchesURL matches a path against "/exact" or "/prefix*".
func matchesURL(pattern, path string) bool {
	if prefix, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(path, prefix)
	}
	return pattern == path
}
