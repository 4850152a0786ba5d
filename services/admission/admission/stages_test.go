package admission

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	pkgadmission "github.com/kubesplit/kubesplit/pkg/admission"

	"github.com/kubesplit/kubesplit/pkg/polltest"
)

// stages are the registry's two admitters, in process or remote.
type stages struct{ mutating, validating pkgadmission.Admitter }

// admit runs a as the registry does: mutate, apply the patch, validate
// the result. It returns the final pod, or the denial's status.
func (s stages) admit(t *testing.T, a *pkgadmission.Attributes) (*corev1.Pod, int32, string) {
	t.Helper()
	ctx := context.Background()
	res, err := s.mutating.Admit(ctx, a)
	if err != nil {
		t.Fatalf("mutating: %v", err)
	}
	if !res.Allowed {
		return nil, res.Status.Code, res.Status.Message
	}
	final := *a
	if final.Object.Raw, err = pkgadmission.ApplyPatch(a.Object.Raw, res.Patch); err != nil {
		t.Fatal(err)
	}
	res, err = s.validating.Admit(ctx, &final)
	if err != nil {
		t.Fatalf("validating: %v", err)
	}
	if len(res.Patch) > 0 {
		t.Fatal("validating stage patched")
	}
	if !res.Allowed {
		return nil, res.Status.Code, res.Status.Message
	}
	var pod corev1.Pod
	if err := json.Unmarshal(final.Object.Raw, &pod); err != nil {
		t.Fatal(err)
	}
	return &pod, 0, ""
}

// One table, run against the in-process Local (the fused binary) and
// against the service's webhooks (the split stack).
func TestStagesLocalAndRemote(t *testing.T) {
	local, err := NewLocal(context.Background(), onFake(LocalConfig{Client: fake.NewClientset(cluster()...), Log: slog.New(slog.DiscardHandler)}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(local.Close)
	polltest.Until(t, 10*time.Second, "the plugins' informers", local.Ready)
	if pkgadmission.PhaseOf(local.Mutating()) != pkgadmission.PhaseMutating || pkgadmission.PhaseOf(local.Validating()) != pkgadmission.PhaseValidating {
		t.Fatal("Local's admitters are not marked with their phases")
	}
	srv := start(t, Config{InsecureAllowUnauthenticated: true})
	impls := map[string]stages{
		"local": {local.Mutating(), local.Validating()},
		"remote": {
			pkgadmission.Mutating(webhook(t, srv.URL()+pkgadmission.MutatingPath, nil)),
			webhook(t, srv.URL()+pkgadmission.ValidatingPath, nil),
		},
	}
	named := func(account string) *pkgadmission.Attributes {
		a := podCreate(t, "ns")
		var pod corev1.Pod
		_ = json.Unmarshal(a.Object.Raw, &pod)
		pod.Spec.ServiceAccountName = account
		a.Object.Raw, _ = json.Marshal(&pod)
		return a
	}
	cases := []struct {
		name    string
		attrs   *pkgadmission.Attributes
		account string // of the admitted pod
		code    int32
		message string
	}{
		{"default account", podCreate(t, "ns"), "default", 0, ""},
		{"named account", named("default"), "default", 0, ""},
		{"missing account", named("ghost"), "", http.StatusForbidden, "error looking up service account ns/ghost"},
		{"terminating namespace", podCreate(t, "dying"), "", http.StatusForbidden, "because it is being terminated"},
	}
	for impl, s := range impls {
		for _, c := range cases {
			t.Run(impl+"/"+c.name, func(t *testing.T) {
				pod, code, message := s.admit(t, c.attrs)
				if code != c.code || !strings.Contains(message, c.message) {
					t.Fatalf("got %d %q, want %d %q", code, message, c.code, c.message)
				}
				if c.code == 0 && pod.Spec.ServiceAccountName != c.account {
					t.Fatalf("account %q, want %q", pod.Spec.ServiceAccountName, c.account)
				}
			})
		}
	}
}
