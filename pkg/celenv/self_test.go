package celenv

import (
	"strings"
	"testing"
)

func TestCompileSelf(t *testing.T) {
	rule, err := CompileSelf("self.replicas <= self.maxReplicas", Bool)
	if err != nil || rule.Transition {
		t.Fatalf("rule: %v, transition %v", err, rule != nil && rule.Transition)
	}
	out, _, err := rule.Eval(map[string]any{Self: map[string]any{"replicas": int64(3), "maxReplicas": int64(2)}})
	if err != nil || out.Value() != false {
		t.Errorf("3 <= 2 evaluated to %v, %v", out, err)
	}
	transition, err := CompileSelf("self >= oldSelf", Bool)
	if err != nil || !transition.Transition {
		t.Fatalf("transition rule: %v", err)
	}
	if _, err := CompileSelf("object.spec", Bool); err == nil || !strings.Contains(err.Error(), "undeclared reference to 'object'") {
		t.Errorf("object in a self rule: %v", err)
	}
	if _, err := CompileSelf("self.x +", Bool); err == nil || !strings.Contains(err.Error(), "Syntax error") {
		t.Errorf("syntax error: %v", err)
	}
}
