package e2e

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/polltest"
)

const composeNS = "compose-e2e"

// TestComposeStack brings deploy/compose up from images built from this
// tree (`make images`), as a user would, and checks what deploying the
// stages separately promises: kubectl works against the only published
// port; a stage scaled up is used on every replica; replicas and an etcd
// member can die without losing or duplicating a write or allowing what
// is forbidden; a stage that is down fails closed with 503 and recovers.
// Everything the test made is removed at its end. It needs a Docker
// engine and is skipped without one (or with KUBESPLIT_COMPOSE=skip).
func TestComposeStack(t *testing.T) {
	start := time.Now()
	s := startCompose(t)
	t.Cleanup(func() { t.Logf("compose test took %v", time.Since(start).Round(time.Second)) })
	t.Run("kubectl", func(t *testing.T) { testComposeKubectl(t, s) })
	if t.Failed() {
		return
	}
	t.Run("controllers held by registry replicas", func(t *testing.T) { testComposeControllerLeases(t, s) })
	t.Run("scaled authz serves on every replica", func(t *testing.T) { testComposeScaleAuthz(t, s) })
	t.Run("replicas killed during writes", func(t *testing.T) { testComposeKillDuringWrites(t, s) })
	t.Run("one etcd member down", func(t *testing.T) { testComposeEtcdMemberDown(t, s) })
	t.Run("authn down and back", func(t *testing.T) { testComposeAuthnDown(t, s) })
}

// testComposeKubectl: create, get, watch and an RBAC denial with kubectl.
func testComposeKubectl(t *testing.T, s *composeStack) {
	mustRun := func(args ...string) string {
		t.Helper()
		out, err := s.kubectl(t, args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	mustRun("create", "namespace", composeNS)
	mustRun("-n", composeNS, "create", "configmap", "first", "--from-literal=k=v1")
	if got := mustRun("-n", composeNS, "get", "configmap", "first", "-o", "jsonpath={.data.k}"); got != "v1" {
		t.Errorf("kubectl get configmap first: data.k = %q, want v1", got)
	}

	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	watch := exec.CommandContext(c, "kubectl", "--kubeconfig", s.kubeconfig, "--server", s.rest.Host,
		"-n", composeNS, "get", "configmaps", "--watch", "-o", "name",
		// The root CA publisher's ConfigMap is in every namespace.
		"--field-selector", "metadata.name!="+rootCAConfigMap)
	stdout, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = watch.Wait() }()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "configmap/first" {
		t.Fatalf("kubectl get --watch listed %q first, want configmap/first", lines.Text())
	}
	mustRun("-n", composeNS, "create", "configmap", "second", "--from-literal=k=v2")
	if !lines.Scan() || lines.Text() != "configmap/second" {
		t.Fatalf("kubectl get --watch: next line %q, want configmap/second (err %v)", lines.Text(), lines.Err())
	}

	mustRun("-n", composeNS, "create", "serviceaccount", "robot")
	token := strings.TrimSpace(mustRun("-n", composeNS, "create", "token", "robot"))
	out, err := s.kubectl(t, "--token", token, "-n", composeNS, "get", "configmaps")
	if err == nil || !strings.Contains(out, "Forbidden") {
		t.Errorf("robot without a RoleBinding listing configmaps: err %v, output %q; want Forbidden", err, out)
	}
}

// testComposeControllerLeases: with two registry replicas, each
// background controller's Lease is held by one of them (a container's
// host name is its short id, which begins the holder's identity).
func testComposeControllerLeases(t *testing.T, s *composeStack) {
	registries := s.containers(t, "registry")
	for _, name := range []string{"namespace", "serviceaccount", "garbagecollector", "customresourcedefinition"} {
		lease := "kubesplit-" + name + "-controller"
		var holder string
		polltest.Until(t, 30*time.Second, lease+" held", func() bool {
			l, err := s.admin.CoordinationV1().Leases("kube-system").Get(ctx(t), lease, metav1.GetOptions{})
			if err == nil && l.Spec.HolderIdentity != nil {
				holder = *l.Spec.HolderIdentity
			}
			return holder != ""
		})
		if !slices.ContainsFunc(registries, func(id string) bool { return strings.HasPrefix(holder, id[:12]+"_") }) {
			t.Errorf("Lease %s is held by %q, not by a registry replica (%v)", lease, holder, registries)
		}
	}
}

// testComposeScaleAuthz scales authz to three replicas and sees each of
// them receive its share of SelfSubjectAccessReviews sent to the
// aggregator, which finds new replicas by DNS.
func testComposeScaleAuthz(t *testing.T, s *composeStack) {
	start := time.Now()
	s.must(t, "up", "-d", "--no-recreate", "--scale", "authz=3")
	t.Logf("scaled in %v", time.Since(start).Round(time.Second))
	var ids []string
	polltest.Until(t, 90*time.Second, "three healthy authz replicas", func() bool {
		ids = s.containers(t, "authz")
		return len(ids) == 3 && allHealthy(t, ids)
	})
	t.Logf("three replicas healthy after %v", time.Since(start).Round(time.Second))
	ok := polltest.Within(90*time.Second, func() bool {
		before := networkReceived(t, ids)
		sendAccessReviews(t, s.admin, 150)
		after := networkReceived(t, ids)
		for _, id := range ids {
			// 150 reviews of about a kilobyte each over three replicas,
			// against the few hundred bytes of the health checks.
			if after[id]-before[id] < 15_000 {
				t.Logf("authz %.12s received %d bytes for the reviews; waiting for the aggregator to use it", id, after[id]-before[id])
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatal("the aggregator did not spread reviews over the three authz replicas within 90 s")
	}
	t.Logf("every replica served reviews %v after scaling", time.Since(start).Round(time.Second))
}

func allHealthy(t *testing.T, ids []string) bool {
	out := docker(t, append([]string{"inspect", "-f", "{{.State.Health.Status}}"}, ids...)...)
	return strings.Count(out, "healthy") == len(ids) && !strings.Contains(out, "unhealthy")
}

func sendAccessReviews(t *testing.T, admin kubernetes.Interface, n int) {
	t.Helper()
	for i := range n {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: composeNS, Verb: "get", Resource: "configmaps", Name: fmt.Sprintf("cm-%d", i)},
		}}
		if _, err := admin.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx(t), review, metav1.CreateOptions{}); err != nil {
			t.Fatalf("SelfSubjectAccessReview: %v", err)
		}
	}
}

// testComposeKillDuringWrites kills one authz and one registry replica
// while a service account writes ConfigMaps one after another and another,
// without permission, keeps trying (half of its creates in namespaces of
// their own, so that their decisions are not cached and each asks authz):
// every write is stored exactly once and no forbidden one gets through.
func testComposeKillDuringWrites(t *testing.T, s *composeStack) {
	writer := s.serviceAccountClient(t, "writer", "edit")
	denied := s.serviceAccountClient(t, "robot", "")
	c, stop := context.WithCancel(context.Background())
	defer stop()
	w := startStreamWriter(c, writer.CoreV1().ConfigMaps(composeNS))
	forbidden := startForbiddenWriter(c, denied)

	w.waitFor(t, 20)
	authz, registry := s.containers(t, "authz"), s.containers(t, "registry")
	if len(authz) < 2 || len(registry) < 2 {
		t.Fatalf("want several replicas to kill one of: authz %d, registry %d", len(authz), len(registry))
	}
	docker(t, "kill", authz[0], registry[0])
	killedAt, kill := w.count(), time.Now()
	// The stream goes on for a while after the kill: long enough for the
	// aggregator to notice the dead replicas (health checks, DNS).
	polltest.Until(t, 2*time.Minute, "40 more writes and 10 s after the kill", func() bool {
		return w.failed() || (w.count() >= killedAt+40 && time.Since(kill) > 10*time.Second)
	})
	stop()
	res := w.result()
	if res.err != nil {
		t.Fatalf("writer: %v", res.err)
	}
	t.Logf("%d ConfigMaps written, %d retried after an error (%v)", res.written, res.retries, res.lastErr)
	assertWrittenOnce(t, s.admin, res.written)
	f := <-forbidden
	t.Logf("forbidden creates: %d refused, %d unanswered", f.refused, f.unanswered)
	if len(f.allowed) > 0 {
		t.Errorf("%d creates without permission got past authorization: %v", len(f.allowed), f.allowed)
	}
	if f.refused == 0 {
		t.Error("no forbidden create was refused: the forbidden writer did not run")
	}
}

// testComposeEtcdMemberDown stops one of the three etcd members: writes
// and reads keep working on the other two.
func testComposeEtcdMemberDown(t *testing.T, s *composeStack) {
	s.must(t, "stop", "--timeout", "2", "etcd2")
	defer s.must(t, "start", "etcd2")
	cms := s.admin.CoreV1().ConfigMaps(composeNS)
	// Requests in flight on the stopped member may fail; the registry's
	// etcd client then turns to the others.
	polltest.Until(t, 30*time.Second, "a write with etcd2 stopped", func() bool {
		_, err := cms.Create(ctx(t), configMap("etcd-down-0", "0"), metav1.CreateOptions{})
		return err == nil
	})
	for i := 1; i <= 10; i++ {
		name := fmt.Sprintf("etcd-down-%d", i)
		if _, err := cms.Create(ctx(t), configMap(name, "x"), metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s with etcd2 stopped: %v", name, err)
		}
		if _, err := cms.Get(ctx(t), name, metav1.GetOptions{}); err != nil {
			t.Fatalf("get %s with etcd2 stopped: %v", name, err)
		}
	}
}

// testComposeAuthnDown stops every authn replica: a request whose token
// only authn can check answers 503 with Retry-After, and succeeds again
// once authn is back.
func testComposeAuthnDown(t *testing.T, s *composeStack) {
	s.serviceAccountClient(t, "reader", "view")
	token := s.token(t, "reader") // not yet seen by the aggregator, so not cached
	s.must(t, "stop", "--timeout", "2", "authn")
	status, retryAfter := s.getAs(t, token)
	if status != 503 || retryAfter == "" {
		t.Fatalf("with authn stopped: status %d, Retry-After %q; want 503 with Retry-After", status, retryAfter)
	}
	s.must(t, "start", "authn")
	polltest.Until(t, 90*time.Second, "200 once authn is back", func() bool {
		status, _ := s.getAs(t, token)
		return status == 200
	})
}

func configMap(name, value string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": value}}
}

// serviceAccountClient creates the service account name, bound to the
// cluster role (none if empty) in composeNS, and a client with its token.
func (s *composeStack) serviceAccountClient(t *testing.T, name, role string) kubernetes.Interface {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := s.admin.CoreV1().ServiceAccounts(composeNS).Create(ctx(t), sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if role != "" {
		bindEdit := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-" + role},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: composeNS}},
		}
		if _, err := s.admin.RbacV1().RoleBindings(composeNS).Create(ctx(t), bindEdit, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := rest.AnonymousClientConfig(s.rest)
	cfg.BearerToken = s.token(t, name)
	return kubernetes.NewForConfigOrDie(cfg)
}
