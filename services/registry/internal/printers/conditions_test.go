package printers

import "testing"

// The first condition of a type decides, as kube's helpers have it; a
// missing one is neither found nor True.
func TestConditionTakesTheFirstOfItsType(t *testing.T) {
	obj := decode(t, `{"status":{"conditions":[{"type":"Ready","status":"False"},{"type":"Ready","status":"True"}]}}`).Object
	if c := condition(obj, "Ready"); c == nil || str(c, "status") != "False" {
		t.Errorf("condition Ready = %v, want the first, False", c)
	}
	if conditionTrue(obj, "Ready") {
		t.Error("conditionTrue read past the first Ready condition")
	}
	if condition(obj, "Other") != nil || conditionTrue(obj, "Other") {
		t.Error("a missing condition was found")
	}
}
