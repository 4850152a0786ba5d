package rbac

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubesplit/kubesplit/pkg/authz"

	"github.com/kubesplit/kubesplit/pkg/rbacpolicy"
)

// TestLoadSwapsAtomically loads two policies in turn while readers ask a
// question whose answer depends on which is loaded: at odd revisions alice
// may get pods, at even ones she may not. A reader that saw a half-built
// policy, or an answer from one policy stamped with the other's revision,
// fails; run with -race.
func TestLoadSwapsAtomically(t *testing.T) {
	// Many roles and bindings, so building a policy takes long enough for
	// readers to run during it.
	odd, even := manyBindings(10, true), manyBindings(10, false)
	e := load(t, odd, 1)
	ask := res(user("alice", "team-3"), "get", "", "pods", "ns-7", "p")

	const loads = 20
	done := make(chan struct{})
	var readers sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			last := int64(0)
			for {
				select {
				case <-done:
					return
				default:
				}
				got, err := e.Authorize(context.Background(), ask)
				switch {
				case err != nil:
					errs <- err
					return
				case got.Revision < last:
					errs <- errors.New("revision went backwards")
					return
				case (got.Revision%2 == 1) != (got.Decision == authz.DecisionAllow):
					errs <- errors.New("answer does not match its revision: " + got.Decision.String())
					return
				}
				last = got.Revision
			}
		}()
	}
	for rev := int64(2); rev <= loads; rev++ {
		objs := even
		if rev%2 == 1 {
			objs = odd
		}
		if err := e.Load(objs.roles, objs.clusterRoles, objs.bindings, objs.clusterBindings, rev); err != nil {
			t.Fatalf("Load(%d): %v", rev, err)
		}
	}
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := authorize(t, e, ask); got.Revision != loads {
		t.Errorf("final revision = %d, want %d", got.Revision, loads)
	}
}

// TestConcurrentLoads races loads of many revisions: whatever the order,
// the newest wins and older ones are refused, never applied over it.
func TestConcurrentLoads(t *testing.T) {
	e := load(t, objects{}, 0)
	objs := bindAlice(resourceRule(list("get"), list(""), list("pods")))
	var wg sync.WaitGroup
	for rev := int64(1); rev <= 32; rev++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := e.Load(objs.roles, objs.clusterRoles, objs.bindings, objs.clusterBindings, rev)
			if err != nil && !errors.Is(err, ErrStaleRevision) {
				t.Errorf("Load(%d): %v", rev, err)
			}
		}()
	}
	wg.Wait()
	if got := authorize(t, e, res(user("alice"), "get", "", "pods", "ns", "p")); got.Revision != 32 {
		t.Fatalf("revision after concurrent loads = %d, want 32", got.Revision)
	}
}

// manyBindings is a policy of n namespaces with ten Roles of five rules and
// ten RoleBindings each, plus team groups. When withAlice, alice may get
// pods in ns-7 through her group team-3.
func manyBindings(n int, withAlice bool) objects {
	var objs objects
	verbs := [][]string{{"get"}, {"list", "watch"}, {"create"}, {"update", "patch"}, {"delete"}}
	kinds := []string{"configmaps", "secrets", "services", "deployments", "jobs"}
	for ns := range n {
		namespace := "ns-" + strconv.Itoa(ns)
		for r := range 10 {
			name := "role-" + strconv.Itoa(r)
			var rules []rbacv1.PolicyRule
			for i := range 5 {
				rules = append(rules, resourceRule(verbs[i], list("", "apps", "batch"), list(kinds[(r+i)%5], kinds[(r+i)%5]+"/status")))
			}
			objs.roles = append(objs.roles, roleOf(namespace, name, rules...))
			objs.bindings = append(objs.bindings, binding(namespace, name, "Role", name,
				userSubject("user-"+strconv.Itoa(ns*10+r)), groupSubject("team-"+strconv.Itoa(r))))
		}
	}
	if withAlice {
		objs.roles = append(objs.roles, roleOf("ns-7", "pods", resourceRule(list("get"), list(""), list("pods"))))
		objs.bindings = append(objs.bindings, binding("ns-7", "pods", "Role", "pods", groupSubject("team-3")))
	}
	roles, bindings := rbacpolicy.Defaults()
	objs.clusterRoles, objs.clusterBindings = roles, bindings
	return objs
}
