package admission

import (
	"context"
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
)

// countRuns is a mutating admitter labelling the object run-<n> with how
// many runs it has seen, asking for a second run in the first when ask
// says so; in the second it does what second does.
func countRuns(ask bool, second Admitter) Admitter {
	return Mutating(AdmitterFunc(func(ctx context.Context, a *Attributes) (*Result, error) {
		rc := ReinvocationFrom(ctx)
		if rc == nil {
			return nil, fmt.Errorf("no reinvocation record in the context")
		}
		if rc.IsReinvoke() {
			return second.Admit(ctx, a)
		}
		if ask {
			rc.SetShouldReinvoke()
		}
		return &Result{Allowed: true, Patch: []byte(`[{"op":"add","path":"/metadata/labels/run-1","value":"yes"}]`), Warnings: []string{"first"}}, nil
	}))
}

// The chain runs a second time only when a plugin asked for it, on the
// object the first run made; the answer is both runs' as one, and a denial
// in the second run is the answer.
func TestReinvoking(t *testing.T) {
	relabel := AdmitterFunc(func(_ context.Context, a *Attributes) (*Result, error) {
		if labelsOf(a.Object.Raw)["run-1"] != "yes" {
			return Deny(422, "the second run did not see the first's change"), nil
		}
		return &Result{Allowed: true, Patch: []byte(`[{"op":"add","path":"/metadata/labels/run-2","value":"yes"}]`), Warnings: []string{"second"}}, nil
	})
	for _, c := range []struct {
		name    string
		ask     bool
		second  Admitter
		allowed bool
		labels  map[string]string
	}{
		{"no second run unless asked", false, relabel, true, map[string]string{"app": "x", "run-1": "yes"}},
		{"a second run on the first's object", true, relabel, true, map[string]string{"app": "x", "run-1": "yes", "run-2": "yes"}},
		{"a denial in the second run", true, requireLabel("missing"), false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			attrs := write(admissionv1.Create, pod("app=x"), nil)
			res, err := Reinvoking(mustChain(t, countRuns(c.ask, c.second))).Admit(context.Background(), &attrs)
			if err != nil || res.Allowed != c.allowed {
				t.Fatalf("got %+v, %v", res, err)
			}
			if !c.allowed {
				if res.Patch != nil || len(res.Warnings) != 1 {
					t.Errorf("denial %+v", res)
				}
				return
			}
			got, err := ApplyPatch(attrs.Object.Raw, res.Patch)
			if err != nil {
				t.Fatal(err)
			}
			if l := labelsOf(got); fmt.Sprint(l) != fmt.Sprint(c.labels) {
				t.Errorf("labels %v, want %v", l, c.labels)
			}
		})
	}
}
