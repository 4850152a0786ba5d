package discovery

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

// The upstreams of a default deployment.
const (
	Registry = "registry"
	Authn    = "authn"
	Authz    = "authz"
)

// Rule sends the API paths it matches to one upstream. The zero value of
// each narrowing field matches anything, except Group, where "" is the
// core group (paths under /api).
type Rule struct {
	// Group is the API group: "" for the core group.
	Group string
	// Version narrows the rule to one version, as an APIService does.
	Version string
	// Resource narrows it to one resource, and Subresource further to one
	// of its subresources ("serviceaccounts", "token").
	Resource, Subresource string
	// Upstream names where the matching requests go.
	Upstream string
}

// DefaultRules are kubesplit's routes other than the registry, which
// serves everything they do not match.
func DefaultRules() []Rule {
	return []Rule{
		{Group: "authentication.k8s.io", Upstream: Authn},
		{Group: "authorization.k8s.io", Upstream: Authz},
		// TokenRequest: POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token.
		{Version: "v1", Resource: "serviceaccounts", Subresource: "token", Upstream: Authn},
	}
}

// Table routes API paths to upstreams: the first rule that matches a path
// decides, and Fallback takes every other path under /api and /apis. The
// rules SetDynamic installs (APIServices) are matched before those Add
// appends, as an APIService takes its group version from whoever served
// it before. It is safe for concurrent use; Route takes no lock.
type Table struct {
	fallback string
	rules    atomic.Pointer[[]Rule]
	dynamic  atomic.Pointer[[]Rule]
	mu       sync.Mutex // serialises writers
}

// NewTable returns a table of rules, in order, with fallback for the
// paths they leave.
func NewTable(fallback string, rules ...Rule) (*Table, error) {
	if fallback == "" {
		return nil, fmt.Errorf("%w: no fallback upstream", ErrInvalidRule)
	}
	t := &Table{fallback: fallback}
	t.rules.Store(&[]Rule{})
	t.dynamic.Store(&[]Rule{})
	for _, r := range rules {
		if err := t.Add(r); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// NewDefaultTable returns DefaultRules with the registry as fallback.
func NewDefaultTable() *Table {
	t, _ := NewTable(Registry, DefaultRules()...) // valid by construction
	return t
}

// Add appends a rule, matched after those already in the table; an
// APIService becomes one with its group and version.
func (t *Table) Add(r Rule) error {
	if err := r.validate(); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	old := *t.rules.Load()
	if slices.ContainsFunc(old, r.sameMatch) {
		return fmt.Errorf("%w: %+v", ErrDuplicateRule, r)
	}
	rules := append(slices.Clone(old), r)
	t.rules.Store(&rules)
	return nil
}

// SetDynamic replaces the rules matched before every other one. Each
// must be valid, and no two may match the same paths.
func (t *Table) SetDynamic(rules []Rule) error {
	for i, r := range rules {
		if err := r.validate(); err != nil {
			return err
		}
		if slices.ContainsFunc(rules[:i], r.sameMatch) {
			return fmt.Errorf("%w: %+v", ErrDuplicateRule, r)
		}
	}
	rules = slices.Clone(rules)
	t.dynamic.Store(&rules)
	return nil
}

// Upstreams returns every upstream the static rules (those of NewTable
// and Add) route to, fallback first.
func (t *Table) Upstreams() []string {
	names := []string{t.fallback}
	for _, r := range *t.rules.Load() {
		if !slices.Contains(names, r.Upstream) {
			names = append(names, r.Upstream)
		}
	}
	return names
}

// Route returns the upstream serving path, false when path is not an API
// path (under /api or /apis) or has "." or ".." segments, which a backend
// might resolve to a path other than the one routed and authorized.
func (t *Table) Route(path string) (string, bool) {
	p, ok := parsePath(path)
	if !ok {
		return "", false
	}
	for _, rules := range []*[]Rule{t.dynamic.Load(), t.rules.Load()} {
		for _, r := range *rules {
			if r.matches(p) {
				return r.Upstream, true
			}
		}
	}
	return t.fallback, true
}

// apiPath is what routing looks at in a path.
type apiPath struct {
	core                  bool // under /api rather than /apis
	group, version        string
	resource, subresource string
}

func parsePath(path string) (apiPath, bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if slices.Contains(parts, ".") || slices.Contains(parts, "..") {
		return apiPath{}, false
	}
	var p apiPath
	switch parts[0] {
	case "api":
		p.core = true
		parts = parts[1:]
	case "apis":
		if len(parts) > 1 {
			p.group = parts[1]
		}
		parts = parts[min(2, len(parts)):]
	default:
		return apiPath{}, false
	}
	if len(parts) > 0 {
		p.version = parts[0]
	}
	if info := requestinfo.Parse(http.MethodGet, path, ""); info.IsResourceRequest {
		p.resource, p.subresource = info.Resource, info.Subresource
	}
	return p, true
}

func (r Rule) matches(p apiPath) bool {
	if (r.Group == "") != p.core || r.Group != p.group {
		return false
	}
	return (r.Version == "" || r.Version == p.version) &&
		(r.Resource == "" || r.Resource == p.resource) &&
		(r.Subresource == "" || r.Subresource == p.subresource)
}

func (r Rule) validate() error {
	if r.Upstream == "" || (r.Subresource != "" && r.Resource == "") {
		return fmt.Errorf("%w: %+v", ErrInvalidRule, r)
	}
	return nil
}

// sameMatch tells whether o matches exactly the paths r does.
func (r Rule) sameMatch(o Rule) bool {
	o.Upstream = r.Upstream
	return o == r
}
