package webhooks

import (
	"context"
	"fmt"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubesplit/kubesplit/pkg/celenv"
)

// A webhook's matchConditions, each under the per-call limit, share one
// budget: past it, no further condition runs and the call does not match
// but errs, for the webhook's failurePolicy to decide.
func TestConditionsShareABudget(t *testing.T) {
	var mcs []admissionregistrationv1.MatchCondition
	for i := range 12 {
		// About 920,000 each on the object below: a regular expression
		// priced by its length and the string's, matched in linear time.
		re := "^(?:" + strings.Repeat(fmt.Sprintf("%c|", 'b'+i), 98) + "a)*$"
		mcs = append(mcs, admissionregistrationv1.MatchCondition{
			Name: fmt.Sprintf("c%d", i), Expression: fmt.Sprintf("object.big.matches('%s')", re)})
	}
	c := compileConditions(mcs)
	vars := func(big string) func() (map[string]any, error) {
		return func() (map[string]any, error) {
			return map[string]any{celenv.Object: map[string]any{"big": big}, celenv.OldObject: nil,
				celenv.Request: map[string]any{}, celenv.Params: nil, celenv.NamespaceObject: nil, celenv.Variables: map[string]any{}}, nil
		}
	}
	if ok, err := c.match(context.Background(), vars(strings.Repeat("a", 1000))); !ok || err != nil {
		t.Fatalf("cheap conditions: %v %v", ok, err)
	}
	ok, err := c.match(context.Background(), vars(strings.Repeat("a", 180000)))
	if ok || err == nil || !strings.Contains(err.Error(), "running out of cost budget") {
		t.Fatalf("costly conditions: %v %v", ok, err)
	}
}
