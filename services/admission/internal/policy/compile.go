package policy

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	admv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubesplit/kubesplit/pkg/celenv"
)

// compiled is a policy with its expressions made programs, for the
// resourceVersion it was compiled at.
type compiled struct {
	policy          *admv1.ValidatingAdmissionPolicy
	err             error // an expression that did not compile
	matchConditions []program
	variables       []program
	validations     []validation
	annotations     []program
}

// program is one compiled expression and what it is called: a match
// condition's or a variable's name, an annotation's key.
type program struct {
	name, expr string
	prg        cel.Program
}

// validation is a validation's expression, its messageExpression (nil when
// not set) and the fields that explain a failure.
type validation struct {
	admv1.Validation
	prg     cel.Program
	message cel.Program
}

// compile makes a policy's expressions programs. The registry refuses a
// policy whose expressions do not compile, so an error here means a
// policy stored before that check: it is a configuration error, which
// the policy's failurePolicy decides on.
func compile(p *admv1.ValidatingAdmissionPolicy) *compiled {
	c := &compiled{policy: p}
	spec := &p.Spec
	for _, m := range spec.MatchConditions {
		c.matchConditions = append(c.matchConditions, c.program(m.Name, m.Expression, celenv.Bool))
	}
	for _, v := range spec.Variables {
		c.variables = append(c.variables, c.program(v.Name, v.Expression, celenv.Any))
	}
	for _, v := range spec.Validations {
		val := validation{Validation: v, prg: c.program("", v.Expression, celenv.Bool).prg}
		if v.MessageExpression != "" {
			val.message = c.program("", v.MessageExpression, celenv.String).prg
		}
		c.validations = append(c.validations, val)
	}
	for _, a := range spec.AuditAnnotations {
		c.annotations = append(c.annotations, c.program(a.Key, a.ValueExpression, celenv.StringOrNull))
	}
	return c
}

// program compiles one expression, noting the first error.
func (c *compiled) program(name, expr string, want *cel.Type) program {
	prg, err := celenv.Compile(expr, want)
	if err != nil && c.err == nil {
		c.err = fmt.Errorf("expression %q: %w", expr, err)
	}
	return program{name: name, expr: expr, prg: prg}
}

// compiledCache keeps each policy compiled once per resourceVersion:
// compiling costs far more than evaluating.
type compiledCache struct {
	mu sync.Mutex
	m  map[string]*compiled
}

// get is p compiled, compiling it when p changed since last time.
func (cc *compiledCache) get(p *admv1.ValidatingAdmissionPolicy) *compiled {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if c, ok := cc.m[p.Name]; ok && c.policy.UID == p.UID && c.policy.ResourceVersion == p.ResourceVersion {
		return c
	}
	if cc.m == nil {
		cc.m = map[string]*compiled{}
	}
	c := compile(p)
	cc.m[p.Name] = c
	return c
}
