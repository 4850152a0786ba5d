package escalation

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

func TestNewValidatesDeps(t *testing.T) {
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	for _, deps := range []plugin.Deps{{Informers: factory}, {Client: client}} {
		if _, err := New(deps); !errors.Is(err, admission.ErrInvalidConfig) {
			t.Fatalf("New(%+v) = %v, want ErrInvalidConfig", deps, err)
		}
	}
	a, err := New(plugin.Deps{Client: client, Informers: factory})
	if err != nil {
		t.Fatal(err)
	}
	if admission.PhaseOf(a) != admission.PhaseValidating {
		t.Fatalf("phase %v, want Validating", admission.PhaseOf(a))
	}
	// A client without a REST client (a fake) falls back to the typed
	// client rather than crashing, and never allows.
	res, err := a.Admit(context.Background(), attrs(admissionv1.Create, "roles", "ns", "r", user("u"),
		role("ns", "r", rule(get, "", "pods")), nil))
	if (err == nil) == (res == nil) || (res != nil && res.Allowed) {
		t.Fatalf("Admit with a fake client = %+v, %v; want a denial or an error", res, err)
	}
}

// downEnv is an env whose API no longer answers: any review is an error.
func downEnv(t *testing.T) *env {
	e := newEnv(t, roleGrants())
	e.srv.Close()
	return e
}

func TestWhatGrantsNothingIsNotChecked(t *testing.T) {
	e := downEnv(t)
	del := attrs(admissionv1.Delete, "roles", "ns", "r", user("u"), nil, role("ns", "r", rule(all, "*", "*")))
	other := attrs(admissionv1.Create, "roles", "ns", "r", user("u"), role("ns", "r", rule(all, "*", "*")), nil)
	other.Resource.Group = "example.com"
	sub := attrs(admissionv1.Update, "clusterroles", "", "c", user("u"), clusterRole("c"), clusterRole("c"))
	sub.SubResource = "status"
	unrelated := attrs(admissionv1.Create, "pods", "ns", "p", user("u"), role("ns", "p"), nil)
	masters := attrs(admissionv1.Create, "clusterroles", "", "c", authenticationv1.UserInfo{
		Username: "root", Groups: []string{"system:masters", "system:authenticated"}}, clusterRole("c", rule(all, "*", "*")), nil)
	for name, a := range map[string]*admission.Attributes{
		"delete": del, "other group": other, "subresource": sub, "other resource": unrelated, "system:masters": masters,
	} {
		t.Run(name, func(t *testing.T) { wantAllowed(t, e.admit(t, a)) })
	}
}

func TestAuthzUnreachableIsAnError(t *testing.T) {
	e := downEnv(t)
	for name, a := range map[string]*admission.Attributes{
		"role":         attrs(admissionv1.Create, "roles", "ns", "r", user("admin"), role("ns", "r", rule(get, "", "pods")), nil),
		"cluster role": attrs(admissionv1.Create, "clusterroles", "", "c", user("admin"), clusterRole("c"), nil),
		"binding":      attrs(admissionv1.Create, "rolebindings", "ns", "b", user("admin"), roleBinding("ns", "b", refTo("Role", "x")), nil),
	} {
		t.Run(name, func(t *testing.T) {
			res, err := e.admitter.Admit(context.Background(), a)
			if err == nil || res != nil {
				t.Fatalf("Admit = %+v, %v; want no result and an error", res, err)
			}
		})
	}
}

func TestAuthzFailingMidCheckIsAnError(t *testing.T) {
	e := newEnv(t, roleGrants())
	// Answer the first few reviews, then fail like an overloaded authz.
	var n atomic.Int64
	inner := e.srv.Config.Handler
	e.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) > 3 {
			http.Error(w, "overloaded", http.StatusInternalServerError)
			return
		}
		inner.ServeHTTP(w, r)
	})
	r := role("ns", "r", rule(readVerbs, "", "pods", "configmaps", "secrets"))
	res, err := e.admitter.Admit(context.Background(), attrs(admissionv1.Create, "roles", "ns", "r", user("holder"), r, nil))
	if err == nil || res != nil {
		t.Fatalf("Admit = %+v, %v; want no result and an error", res, err)
	}
}

func TestEvaluationErrorsAreReported(t *testing.T) {
	e := newEnv(t, roleGrants())
	e.authz.broken["holder"] = true
	r := role("ns", "r", rule(get, "", "secrets"))
	wantDenied(t, e.admit(t, attrs(admissionv1.Create, "roles", "ns", "r", user("holder"), r, nil)),
		http.StatusForbidden, `Resources:["secrets"]`, `; resolution errors: [`, `role "gone" not found`)
}

func TestMalformedObjectsAreErrors(t *testing.T) {
	e := newEnv(t, roleGrants())
	bad := attrs(admissionv1.Create, "roles", "ns", "r", user("holder"), nil, nil)
	bad.Object.Raw = []byte(`{"rules": "not a list"`)
	noOld := attrs(admissionv1.Update, "rolebindings", "ns", "b", user("holder"), roleBinding("ns", "b", refTo("Role", "x")), nil)
	empty := attrs(admissionv1.Create, "clusterrolebindings", "", "b", user("holder"), nil, nil)
	for name, a := range map[string]*admission.Attributes{"malformed": bad, "update without old object": noOld, "no object": empty} {
		t.Run(name, func(t *testing.T) {
			res, err := e.admitter.Admit(context.Background(), a)
			if !errors.Is(err, errDecode) || res != nil {
				t.Fatalf("Admit = %+v, %v; want errDecode", res, err)
			}
		})
	}
}

func TestReviewsCarryTheWholeUser(t *testing.T) {
	e := newEnv(t, roleGrants())
	u := user("holder")
	u.Extra = map[string]authenticationv1.ExtraValue{"scopes": {"a", "b"}}
	e.admit(t, attrs(admissionv1.Create, "roles", "ns", "r", u, role("ns", "r", rule(get, "", "pods")), nil))
	if len(e.authz.asked) == 0 {
		t.Fatal("no review asked")
	}
	for _, a := range e.authz.asked {
		got := a.User
		if got.Username != u.Username || got.UID != u.UID || strings.Join(got.Groups, ",") != "dev" ||
			strings.Join(got.Extra["scopes"], ",") != "a,b" {
			t.Fatalf("review for %+v, want %+v", got, u)
		}
	}
}

func TestReviewsRunConcurrentlyAndBounded(t *testing.T) {
	grants := roleGrants()
	grants["wide"] = []grant{{namespace: "ns", rule: rule(get, "example.com", "*")}}
	e := newEnv(t, grants)
	e.authz.gate = maxConcurrentReviews
	e.authz.gateGroup = "example.com"
	e.authz.gateOpen = make(chan struct{})
	var resources []string
	for i := range 40 {
		resources = append(resources, fmt.Sprintf("r%d", i))
	}
	r := role("ns", "r", rule(get, "example.com", resources...))
	wantAllowed(t, e.admit(t, attrs(admissionv1.Create, "roles", "ns", "r", user("wide"), r, nil)))
	if e.authz.timedOut.Load() {
		t.Fatalf("reviews never reached %d in flight", maxConcurrentReviews)
	}
	if got := e.authz.maxInFlight.Load(); got != maxConcurrentReviews {
		t.Fatalf("%d reviews in flight at most, want %d", got, maxConcurrentReviews)
	}
	if got := e.authz.calls.Load(); got != 41 {
		t.Fatalf("%d reviews, want 41", got)
	}
}

func TestDenialIsKubesForbidden(t *testing.T) {
	e := newEnv(t, roleGrants())
	r := role("ns", "r", rule(get, "", "secrets"))
	err := e.admit(t, attrs(admissionv1.Create, "roles", "ns", "r", user("holder"), r, nil)).StatusError()
	var se *apierrors.StatusError
	if !apierrors.IsForbidden(err) || !errors.As(err, &se) {
		t.Fatalf("StatusError() = %v, want Forbidden", err)
	}
	if d := se.ErrStatus.Details; d == nil || d.Group != rbacv1.GroupName || d.Kind != "roles" || d.Name != "r" {
		t.Fatalf("details %+v", se.ErrStatus.Details)
	}
	if se.ErrStatus.Status != metav1.StatusFailure {
		t.Fatalf("status %q", se.ErrStatus.Status)
	}
}
