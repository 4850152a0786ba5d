package casbinpolicy

import (
	"context"
	"encoding/csv"
	"fmt"
	"strings"

	"github.com/casbin/casbin/v2"
	"github.com/casbin/casbin/v2/model"
	"github.com/casbin/casbin/v2/persist"

	"github.com/kubesplit/kubesplit/pkg/authz"
)

// Engine decides reviews with one casbin model and policy. It is
// immutable: a new policy is a new Engine.
type Engine struct {
	enforcer *casbin.SyncedEnforcer
	fields   []field
}

// New parses modelText (casbin's .conf) and policyText (casbin's CSV
// policy lines) into an Engine. A model that does not parse, whose request
// definition names a field New cannot fill, or a policy casbin refuses is
// an error.
func New(modelText, policyText string) (*Engine, error) {
	m, err := model.NewModelFromString(modelText)
	if err != nil {
		return nil, fmt.Errorf("casbin model: %w", err)
	}
	r, ok := m["r"]["r"]
	if !ok {
		return nil, fmt.Errorf("casbin model: no request definition r")
	}
	fs, err := requestFields(r.Tokens)
	if err != nil {
		return nil, fmt.Errorf("casbin model: %w", err)
	}
	e, err := casbin.NewSyncedEnforcer(m)
	if err != nil {
		return nil, fmt.Errorf("casbin model: %w", err)
	}
	if err := loadPolicy(e, policyText); err != nil {
		return nil, fmt.Errorf("casbin policy: %w", err)
	}
	return &Engine{enforcer: e, fields: fs}, nil
}

// loadPolicy adds the policy's lines to e's model, refusing what
// casbin's own loaders skip in silence (a line that does not parse, a
// policy type the model does not define, a rule of the wrong length), so
// that a typo is an error rather than a rule that never matches.
func loadPolicy(e *casbin.SyncedEnforcer, text string) error {
	m := e.GetModel()
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := checkLine(m, line); err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
		if err := persist.LoadPolicyLine(line, m); err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
	}
	return e.BuildRoleLinks()
}

// checkLine refuses a policy line m cannot hold.
func checkLine(m model.Model, line string) error {
	r := csv.NewReader(strings.NewReader(line))
	r.TrimLeadingSpace = true
	rule, err := r.Read()
	if err != nil {
		return err
	}
	ptype := strings.TrimSpace(rule[0])
	ast, ok := m[ptype[:1]][ptype]
	if !ok || (ptype[0] != 'p' && ptype[0] != 'g') {
		return fmt.Errorf("policy type %q is not defined by the model", ptype)
	}
	want := len(ast.Tokens)
	if ptype[0] == 'g' {
		want = strings.Count(ast.Value, "_")
	}
	if got := len(rule) - 1; got != want {
		return fmt.Errorf("%s has %d fields, the model defines %d", ptype, got, want)
	}
	return nil
}

// Authorize asks the model. A request it allows is an Allow; one it
// refuses because a policy rule matched (a deny rule) is a Deny; one no
// rule matched is NoOpinion, so that a later engine of the chain may
// still decide. An evaluation error is NoOpinion with the error: it fails
// closed.
func (e *Engine) Authorize(_ context.Context, a authz.Attributes) (authz.Result, error) {
	vals := make([]any, len(e.fields))
	for i, f := range e.fields {
		vals[i] = f(a)
	}
	ok, rule, err := e.enforcer.EnforceEx(vals...)
	switch {
	case err != nil:
		return authz.Result{Decision: authz.DecisionNoOpinion}, fmt.Errorf("casbin: %w", err)
	case ok:
		return authz.Result{Decision: authz.DecisionAllow, Reason: "allowed by casbin policy " + describe(rule)}, nil
	case len(rule) > 0:
		return authz.Result{Decision: authz.DecisionDeny, Reason: "denied by casbin policy " + describe(rule)}, nil
	}
	return authz.Result{Decision: authz.DecisionNoOpinion}, nil
}

// describe names the policy rule that decided.
func describe(rule []string) string {
	if len(rule) == 0 {
		return "(the model's effect)"
	}
	return "[" + strings.Join(rule, ", ") + "]"
}
