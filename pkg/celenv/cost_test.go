package celenv

import (
	"errors"
	"strings"
	"testing"
)

// kube's library functions cost what they read: calling them in a loop
// reaches the per-call limit, where cel-go alone would count each call as
// one unit and let a loop run for minutes.
func TestLibraryCallsAreCharged(t *testing.T) {
	long := strings.Repeat("a", 100000)
	ints := make([]any, 10000)
	for i := range ints {
		ints[i] = int64(i)
	}
	cases := map[string]any{
		"lists.range(1000).all(i, self.replace('a', 'b') != '')":                        long,
		"lists.range(1000).all(i, self.lowerAscii() != '')":                             long,
		"lists.range(1000).all(i, self.split('b').size() > 0)":                          long,
		"lists.range(1000).all(i, self.find('b+') == '')":                               long,
		"lists.range(1000).all(i, self.isSorted())":                                     ints,
		"lists.range(1000).all(i, self.indexOf(-1) < 0)":                                ints,
		"lists.range(1000).all(i, [self, self].join(',') != '')":                        long,
		"lists.range(1000).all(i, self.substring(1) != '' && self.trim() != '')":        long,
		"lists.range(1000).all(i, self.max() > 0 && self.min() >= 0 && self.sum() > 0)": ints,
	}
	for expr, self := range cases {
		rule, err := CompileSelf(expr, Bool)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		_, err = NewBudget(RuntimeCostBudget).Eval(rule.Program, map[string]any{Self: self})
		if !IsCallCostExceeded(err) {
			t.Errorf("%s: %v, want the per-call limit", expr, err)
		}
	}
}

// A budget pays for calls until one costs more than what is left.
func TestBudget(t *testing.T) {
	rule, err := CompileSelf("self.matches('^a+$')", Bool)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]any{Self: strings.Repeat("a", 10000)} // about 1,000 a call
	b := NewBudget(2500)
	for range 2 {
		if out, err := b.Eval(rule.Program, vars); err != nil || out.Value() != true {
			t.Fatalf("within the budget: %v %v", out, err)
		}
	}
	if _, err := b.Eval(rule.Program, vars); !errors.Is(err, ErrBudgetExhausted) || !b.Exhausted() {
		t.Fatalf("past the budget: %v", err)
	}
	if _, err := b.Eval(rule.Program, map[string]any{Self: "a"}); !errors.Is(err, ErrBudgetExhausted) {
		t.Fatalf("after the budget ran out: %v", err)
	}
}

// Estimates use the sizes given, and kube's messages say by how much a
// cost is over its limit.
func TestMaxCost(t *testing.T) {
	sizes := func(path []string) (uint64, bool) {
		switch strings.Join(path, ".") {
		case "self.items":
			return 10, true
		case "self.items.@items", "self.items.@keys":
			return 64, true
		}
		return 0, false
	}
	rule, err := CompileSelf("self.items.all(x, self.items.all(y, x != y))", Bool)
	if err != nil {
		t.Fatal(err)
	}
	bounded, err := rule.MaxCost(sizes)
	if err != nil || bounded == 0 || bounded > 10000 {
		t.Errorf("bounded: %d %v", bounded, err)
	}
	unbounded, err := rule.MaxCost(nil)
	if err != nil || unbounded < StaticEstimatedCostLimit*100 {
		t.Errorf("unbounded: %d %v", unbounded, err)
	}
	for cost, want := range map[uint64]string{
		unbounded:                    "estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
		StaticEstimatedCostLimit * 2: "by factor of 2.0x",
		StaticEstimatedCostLimit + 1: "by factor of 1.000000x",
	} {
		if got := CostExceedsMessage("estimated rule cost", cost, StaticEstimatedCostLimit); !strings.Contains(got, want) {
			t.Errorf("%d: %q, want %q", cost, got, want)
		}
	}
}
