package admission

import (
	"context"
	"errors"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestChainRejectsNil(t *testing.T) {
	for _, as := range [][]Admitter{{nil}, {allowAll, Mutating(nil)}, {Validating(nil)}} {
		if _, err := Chain(as...); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%v: error %v, want ErrInvalidConfig", as, err)
		}
	}
}

// TestChainStops: the first denial or error is the answer, and no later
// admitter is asked, whatever its phase.
func TestChainStops(t *testing.T) {
	for name, stop := range map[string]Admitter{"denial": requireLabel("team"), "error": broken} {
		later, laterMutating := record(allowAll), record(addLabel("a", "b"))
		for _, as := range [][]Admitter{
			{stop, later},
			{Mutating(stop), laterMutating, later},
		} {
			attrs := write(admissionv1.Create, pod(), nil)
			res, err := mustChain(t, as...).Admit(context.Background(), &attrs)
			if (err != nil) != (name == "error") || (res != nil && res.Allowed) {
				t.Errorf("%s: got %+v, %v", name, res, err)
			}
		}
		if len(later.calls())+len(laterMutating.calls()) > 0 {
			t.Errorf("%s: an admitter after it was asked", name)
		}
	}
}

// TestChainPatchIsAgainstTheOriginal: applying the chain's one patch to the
// object it was given gives exactly what the last admitter saw.
func TestChainPatchIsAgainstTheOriginal(t *testing.T) {
	last := record(allowAll)
	c := mustChain(t, last, addLabel("team", "web"), copyLabel("team", "owner"),
		Mutating(AdmitterFunc(func(context.Context, *Attributes) (*Result, error) {
			return &Result{Allowed: true, Patch: []byte(`[{"op":"remove","path":"/spec"}]`)}, nil
		})))
	attrs := write(admissionv1.Create, pod("app=x"), nil)
	res, err := c.Admit(context.Background(), &attrs)
	if err != nil || !res.Allowed {
		t.Fatalf("got %+v, %v", res, err)
	}
	got, err := ApplyPatch(attrs.Object.Raw, res.Patch)
	if err != nil {
		t.Fatal(err)
	}
	seen := last.calls()[0].Object.Raw
	if !sameJSON(t, got, seen) || !sameJSON(t, seen, []byte(`{"apiVersion":"v1","kind":"Pod",
		"metadata":{"name":"web","namespace":"team","labels":{"app":"x","team":"web","owner":"web"}}}`)) {
		t.Errorf("patch gives %s, last admitter saw %s", got, seen)
	}
}

func TestChainBadPatches(t *testing.T) {
	patching := func(patch string) Admitter {
		return Mutating(AdmitterFunc(func(context.Context, *Attributes) (*Result, error) {
			return &Result{Allowed: true, Patch: []byte(patch)}, nil
		}))
	}
	cases := []struct {
		name  string
		a     Admitter
		attrs Attributes
		want  error
	}{
		{"not a JSON patch", patching(`{"metadata":{}}`), write(admissionv1.Create, pod(), nil), ErrInvalidResult},
		{"does not apply", patching(`[{"op":"replace","path":"/nope/x","value":1}]`), write(admissionv1.Create, pod(), nil), ErrPatchFailed},
		{"failed test op", patching(`[{"op":"test","path":"/kind","value":"Service"}]`), write(admissionv1.Create, pod(), nil), ErrPatchFailed},
		{"DELETE has no object", addLabelAlways, write(admissionv1.Delete, nil, pod()), ErrPatchFailed},
		{"validating", patchingValidator, write(admissionv1.Create, pod(), nil), ErrValidatingPatch},
		{"unmarked as validating", Validating(addLabel("a", "b")), write(admissionv1.Create, pod(), nil), ErrValidatingPatch},
		{"no result", AdmitterFunc(func(context.Context, *Attributes) (*Result, error) { return nil, nil }), write(admissionv1.Create, pod(), nil), ErrInvalidResult},
	}
	for _, c := range cases {
		res, err := mustChain(t, c.a, allowAll).Admit(context.Background(), &c.attrs)
		if !errors.Is(err, c.want) || res != nil {
			t.Errorf("%s: got %+v, %v; want %v", c.name, res, err, c.want)
		}
	}
}

// addLabelAlways patches whatever the operation.
var addLabelAlways = Mutating(AdmitterFunc(func(context.Context, *Attributes) (*Result, error) {
	return &Result{Allowed: true, Patch: []byte(`[{"op":"add","path":"/metadata/labels/x","value":"y"}]`)}, nil
}))

func TestChainEmptyPatchIsNoPatch(t *testing.T) {
	empty := Mutating(AdmitterFunc(func(context.Context, *Attributes) (*Result, error) {
		return &Result{Allowed: true, Patch: []byte(`[]`)}, nil
	}))
	attrs := write(admissionv1.Delete, nil, pod())
	res, err := mustChain(t, empty).Admit(context.Background(), &attrs)
	if err != nil || !res.Allowed || res.Patch != nil {
		t.Fatalf("got %+v, %v", res, err)
	}
}

// TestChainEncodesTypedObjects: a local caller holding a typed object gets
// the same JSON view a remote admitter would, and its attributes back
// untouched.
func TestChainEncodesTypedObjects(t *testing.T) {
	seen := record(allowAll)
	p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"app": "x"}}}
	attrs := Attributes{Operation: admissionv1.Create, Object: runtime.RawExtension{Object: p}}
	res, err := mustChain(t, addLabel("team", "web"), seen).Admit(context.Background(), &attrs)
	if err != nil || !res.Allowed {
		t.Fatalf("got %+v, %v", res, err)
	}
	obj := seen.calls()[0].Object
	if obj.Object != nil || labelsOf(obj.Raw)["team"] != "web" {
		t.Errorf("validating admitter saw %+v", obj)
	}
	if attrs.Object.Raw != nil || len(p.Labels) != 1 {
		t.Error("the caller's attributes changed")
	}
}

func TestChainNests(t *testing.T) {
	inner := mustChain(t, addLabel("team", "web"))
	if PhaseOf(inner) != PhaseMutating || PhaseOf(mustChain(t, allowAll)) != PhaseValidating {
		t.Fatal("a chain's phase is not its admitters'")
	}
	attrs := write(admissionv1.Create, pod(), nil)
	res, err := mustChain(t, requireLabel("team"), inner).Admit(context.Background(), &attrs)
	if err != nil || !res.Allowed || res.Patch == nil {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestPhaseOf(t *testing.T) {
	cases := []struct {
		a    Admitter
		want Phase
	}{
		{allowAll, PhaseValidating},
		{Mutating(allowAll), PhaseMutating},
		{Validating(Mutating(allowAll)), PhaseValidating},
		{Mutating(Validating(allowAll)), PhaseMutating},
		{&WebhookClient{}, PhaseValidating},
	}
	for i, c := range cases {
		if got := PhaseOf(c.a); got != c.want {
			t.Errorf("%d: %v, want %v", i, got, c.want)
		}
	}
	if Mutating(nil) != nil || Validating(nil) != nil {
		t.Error("marking nil is not nil")
	}
}
