package rbac

import (
	_ "embed"
	"fmt"

	"github.com/casbin/casbin/v2"
	"github.com/casbin/casbin/v2/model"
)

//go:embed model.conf
var modelText string

// nonResourceContext selects the r2/p2/e2/m2 half of the model.
var nonResourceContext = casbin.NewEnforceContext("2")

// matchFunc is one custom function model.conf calls.
type matchFunc struct {
	name  string
	arity int
	// match takes the arguments in order; c is "" for two-argument
	// functions. Three plain parameters rather than a slice keep the call
	// free of allocations.
	match func(a, b, c string) bool
}

// matchFuncs implement kube's globs for the model (see match.go).
var matchFuncs = []matchFunc{
	{"verbMatch", 2, func(verb, verbs, _ string) bool { return verbMatches(verb, verbs) }},
	{"groupMatch", 2, func(group, groups, _ string) bool { return groupMatches(group, groups) }},
	{"resMatch", 3, resourceMatches},
	{"nameMatch", 2, func(name, names, _ string) bool { return nameMatches(name, names) }},
	{"urlMatch", 2, func(path, urls, _ string) bool { return urlMatches(path, urls) }},
}

// parseModel parses the embedded model; the engine parses it once and
// copies it for every role enforcer.
func parseModel() (model.Model, error) {
	m, err := model.NewModelFromString(modelText)
	if err != nil {
		return nil, fmt.Errorf("rbac: parsing casbin model: %w", err)
	}
	return m, nil
}

// newEnforcer returns an enforcer over a copy of m with the match functions
// registered and no policy.
func newEnforcer(m model.Model) (*casbin.Enforcer, error) {
	e, err := casbin.NewEnforcer(m.Copy())
	if err != nil {
		return nil, fmt.Errorf("rbac: creating casbin enforcer: %w", err)
	}
	for _, f := range matchFuncs {
		e.AddFunction(f.name, f.govaluate)
	}
	return e, nil
}

// govaluate is f in the form casbin calls. casbin hands request and policy
// values over as interface{}; anything but strings is a bug in this package,
// reported as an evaluation error rather than a panic.
func (f matchFunc) govaluate(args ...interface{}) (interface{}, error) {
	if len(args) != f.arity {
		return nil, fmt.Errorf("rbac: %s takes %d arguments, got %d", f.name, f.arity, len(args))
	}
	var buf [3]string
	for i, a := range args {
		s, ok := a.(string)
		if !ok {
			return nil, fmt.Errorf("rbac: %s: argument %d is %T, not a string", f.name, i, a)
		}
		buf[i] = s
	}
	return f.match(buf[0], buf[1], buf[2]), nil
}
