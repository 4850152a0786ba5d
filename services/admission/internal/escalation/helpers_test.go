package escalation

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// grant is one rule a test user holds, in a namespace ("" for cluster-wide).
type grant struct {
	namespace string
	rule      rbacv1.PolicyRule
}

// rulesAuthorizer is a tiny RBAC authorizer with kube's rule matching: a
// user holds a fixed list of grants. It counts the reviews it answers and
// the most it answered at once.
type rulesAuthorizer struct {
	grants map[string][]grant
	// broken users get a denial with an evaluation error, as authz gives
	// when a binding references a missing role.
	broken map[string]bool

	calls, inFlight, maxInFlight atomic.Int64
	mu                           sync.Mutex
	asked                        []authz.Attributes

	// gate, when set, holds every review about gateGroup until gate
	// reviews were in flight at once (or a deadline passed, which timedOut
	// records), to show that reviews run concurrently.
	gate      int64
	gateGroup string
	gateOnce  sync.Once
	gateOpen  chan struct{}
	timedOut  atomic.Bool
}

// wait holds a review at the gate.
func (z *rulesAuthorizer) wait(n int64, a *authz.Attributes) {
	if z.gate == 0 || a.APIGroup != z.gateGroup {
		return
	}
	if n >= z.gate {
		z.gateOnce.Do(func() { close(z.gateOpen) })
	}
	select {
	case <-z.gateOpen:
	case <-time.After(5 * time.Second):
		z.timedOut.Store(true)
	}
}

func (z *rulesAuthorizer) Authorize(_ context.Context, a authz.Attributes) (authz.Result, error) {
	z.calls.Add(1)
	n := z.inFlight.Add(1)
	defer z.inFlight.Add(-1)
	for m := z.maxInFlight.Load(); n > m && !z.maxInFlight.CompareAndSwap(m, n); m = z.maxInFlight.Load() {
	}
	z.wait(n, &a)
	z.mu.Lock()
	z.asked = append(z.asked, a)
	z.mu.Unlock()
	for _, g := range z.grants[a.User.Username] {
		if g.namespace != "" && (!a.ResourceRequest || g.namespace != a.Namespace) {
			continue
		}
		if ruleAllows(&g.rule, &a) {
			return authz.Result{Decision: authz.DecisionAllow}, nil
		}
	}
	if z.broken[a.User.Username] {
		return authz.Result{Decision: authz.DecisionNoOpinion}, errors.New(`role "gone" not found`)
	}
	return authz.Result{Decision: authz.DecisionNoOpinion}, nil
}

// ruleAllows matches as kube's RBAC authorizer does (rbacv1helpers'
// VerbMatches, APIGroupMatches, ResourceMatches, ResourceNameMatches,
// NonResourceURLMatches).
func ruleAllows(r *rbacv1.PolicyRule, a *authz.Attributes) bool {
	if !has(r.Verbs, a.Verb) {
		return false
	}
	if !a.ResourceRequest {
		for _, u := range r.NonResourceURLs {
			if u == "*" || u == a.Path || (strings.HasSuffix(u, "*") && strings.HasPrefix(a.Path, strings.TrimRight(u, "*"))) {
				return true
			}
		}
		return false
	}
	if !has(r.APIGroups, a.APIGroup) {
		return false
	}
	combined := a.Resource
	if a.Subresource != "" {
		combined += "/" + a.Subresource
	}
	resourceOK := false
	for _, res := range r.Resources {
		if res == "*" || res == combined || (a.Subresource != "" && res == "*/"+a.Subresource) {
			resourceOK = true
		}
	}
	return resourceOK && (len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, a.Name))
}

func has(list []string, v string) bool {
	return slices.Contains(list, "*") || slices.Contains(list, v)
}

// env is a real API endpoint for the plugin: SubjectAccessReviews answered
// by pkg/authz's handler over the authorizer, and GETs of the roles and
// cluster roles it serves.
type env struct {
	authz        *rulesAuthorizer
	roles        map[string]*rbacv1.Role // by namespace/name
	clusterRoles map[string]*rbacv1.ClusterRole
	srv          *httptest.Server
	factory      informers.SharedInformerFactory
	admitter     admission.Admitter
}

func newEnv(t *testing.T, grants map[string][]grant) *env {
	t.Helper()
	e := &env{
		authz:        &rulesAuthorizer{grants: grants, broken: map[string]bool{}},
		roles:        map[string]*rbacv1.Role{},
		clusterRoles: map[string]*rbacv1.ClusterRole{},
	}
	mux := http.NewServeMux()
	mux.Handle("POST "+authz.SubjectAccessReviewPath, authz.NewSubjectAccessReviewHandler(e.authz))
	mux.HandleFunc("GET /apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles/{name}", func(w http.ResponseWriter, r *http.Request) {
		serve(w, e.roles[r.PathValue("ns")+"/"+r.PathValue("name")], rolesResource.String(), r.PathValue("name"))
	})
	mux.HandleFunc("GET /apis/rbac.authorization.k8s.io/v1/clusterroles/{name}", func(w http.ResponseWriter, r *http.Request) {
		serve(w, e.clusterRoles[r.PathValue("name")], clusterRolesResource.String(), r.PathValue("name"))
	})
	e.srv = httptest.NewServer(mux)
	t.Cleanup(e.srv.Close)
	// No client-side rate limit: a check is many reviews, and the default
	// (5 per second) would make the tests slow, not different.
	client, err := kubernetes.NewForConfig(&rest.Config{Host: e.srv.URL, QPS: -1})
	if err != nil {
		t.Fatal(err)
	}
	// The factory is never started: its listers are empty unless a test
	// fills an indexer, so reads fall back to the live GET.
	e.factory = informers.NewSharedInformerFactory(client, 0)
	e.admitter, err = New(plugin.Deps{Client: client, Informers: e.factory})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// serve writes obj as JSON, or kube's NotFound when it is nil.
func serve[T any](w http.ResponseWriter, obj *T, resource, name string) {
	if obj == nil {
		gr := rbacv1.Resource(strings.TrimSuffix(resource, "."+rbacv1.GroupName))
		apierror.Write(w, apierrors.NewNotFound(gr, name))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(obj)
}

// user is a test user in group "dev".
func user(name string) authenticationv1.UserInfo {
	return authenticationv1.UserInfo{Username: name, UID: "uid-" + name, Groups: []string{"dev"}}
}

// attrs is the review of op on resource (an RBAC one) in namespace by u.
func attrs(op admissionv1.Operation, resource, namespace, name string, u authenticationv1.UserInfo, obj, old runtime.Object) *admission.Attributes {
	a := &admission.Attributes{
		Operation: op,
		Resource:  metav1.GroupVersionResource{Group: rbacv1.GroupName, Version: "v1", Resource: resource},
		Namespace: namespace,
		Name:      name,
		UserInfo:  u,
	}
	if obj != nil {
		a.Object.Raw = mustJSON(obj)
	}
	if old != nil {
		a.OldObject.Raw = mustJSON(old)
	}
	return a
}

func mustJSON(obj any) []byte {
	raw, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	return raw
}

func role(namespace, name string, rules ...rbacv1.PolicyRule) *rbacv1.Role {
	return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}, Rules: rules}
}

func clusterRole(name string, rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}
}

// rule is a resource rule on verbs of group/resources.
func rule(verbs []string, group string, resources ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{Verbs: verbs, APIGroups: []string{group}, Resources: resources}
}

// admit runs the plugin and fails the test on an error.
func (e *env) admit(t *testing.T, a *admission.Attributes) *admission.Result {
	t.Helper()
	res, err := e.admitter.Admit(context.Background(), a)
	if err != nil {
		t.Fatalf("Admit: %v", err)
	}
	if res == nil {
		t.Fatal("Admit: nil result and nil error")
	}
	return res
}

// wantAllowed fails unless res allows.
func wantAllowed(t *testing.T, res *admission.Result) {
	t.Helper()
	if !res.Allowed {
		t.Fatalf("denied, want allowed: %+v", res.Status)
	}
}

// wantDenied fails unless res denies with code and a message holding every
// one of parts.
func wantDenied(t *testing.T, res *admission.Result, code int32, parts ...string) {
	t.Helper()
	if res.Allowed || res.Status == nil {
		t.Fatalf("allowed, want denied with %d", code)
	}
	if res.Status.Code != code {
		t.Fatalf("code %d (%s), want %d: %s", res.Status.Code, res.Status.Reason, code, res.Status.Message)
	}
	for _, p := range parts {
		if !strings.Contains(res.Status.Message, p) {
			t.Fatalf("message %q lacks %q", res.Status.Message, p)
		}
	}
}
