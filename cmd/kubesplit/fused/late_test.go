package fused

import (
	"testing"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// Until admission has started its rules are unknown, so the registry asks
// it about every write (and is refused); once started, the registry asks
// about the writes the rules name only, as they are at each call.
func TestLateRules(t *testing.T) {
	var l lateRules
	if _, known := l.Rules(t.Context()); known {
		t.Fatal("rules known before admission started")
	}
	current := admission.Rules{Mutating: []admission.Rule{{}}}
	l.set(func() admission.Rules { return current })
	got, known := l.Rules(t.Context())
	if !known || len(got.Mutating) != 1 || len(got.Validating) != 0 {
		t.Fatalf("after start: %+v, known %v; want admission's rules", got, known)
	}
	current = admission.Rules{Validating: []admission.Rule{{}, {}}}
	if got, _ := l.Rules(t.Context()); len(got.Validating) != 2 {
		t.Errorf("rules not read at each call: %+v", got)
	}
}
