package handler

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// A Binding and an Eviction are admitted as kube admits them, as creates
// of their kind on the pod's subresource: a mutating stage's change to the
// Binding is what binds (its annotation reaches the pod), and a validating
// stage's refusal of an eviction is the answer, the pod untouched.
func TestActionsAreAdmitted(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	record := func(a *admission.Attributes) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, string(a.Operation)+" "+a.Kind.Group+"/"+a.Kind.Kind+" "+a.Resource.Resource+"/"+a.SubResource+" "+a.Name)
	}
	e := newEnvWith(t, Admission{
		Mutating: admission.AdmitterFunc(func(_ context.Context, a *admission.Attributes) (*admission.Result, error) {
			if a.Kind.Kind != "Binding" {
				return admission.Allow(), nil
			}
			record(a)
			return &admission.Result{Allowed: true, Patch: []byte(`[{"op":"add","path":"/metadata/annotations","value":{"zone":"z1"}}]`)}, nil
		}),
		Validating: admission.AdmitterFunc(func(_ context.Context, a *admission.Attributes) (*admission.Result, error) {
			if a.Kind.Kind != "Eviction" {
				return admission.Allow(), nil
			}
			record(a)
			if a.UserInfo.Username == "intruder" {
				return admission.Deny(http.StatusForbidden, "not your node's pod"), nil
			}
			return admission.Allow(), nil
		}),
	})
	newPod(e, "p")
	e.mustDo("POST", podsPath+"/p/binding", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"target":{"kind":"Node","name":"n1"}}`, http.StatusCreated)
	if got := str(e.mustDo("GET", podsPath+"/p", "", http.StatusOK), "metadata.annotations.zone"); got != "z1" {
		t.Errorf("the mutated Binding's annotation on the pod: %q, want z1", got)
	}

	before := e.etcdState()
	resp, body := e.do("POST", podsPath+"/p/eviction", eviction("p"), "X-Test-User", "intruder")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "not your node's pod") {
		t.Fatalf("refused eviction: %d %s", resp.StatusCode, body)
	}
	e.untouched(before, "a refused eviction")

	want := []string{"CREATE /Binding pods/binding p", "CREATE policy/Eviction pods/eviction p"}
	if len(seen) != 2 || seen[0] != want[0] || seen[1] != want[1] {
		t.Errorf("reviews %q, want %q", seen, want)
	}
}
