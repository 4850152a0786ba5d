package authz

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/revision"
)

// podOn is a pod bound to node that mounts secret and reads configMap.
func podOn(name, node, secret, configMap string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns1", UID: types.UID("uid-" + name), ResourceVersion: "10"},
		Spec: corev1.PodSpec{
			NodeName: node,
			Volumes: []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{
				Secret: &corev1.SecretVolumeSource{SecretName: secret},
			}}},
			Containers: []corev1.Container{{Name: "c", EnvFrom: []corev1.EnvFromSource{{
				ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: configMap}},
			}}}},
		},
	}
}

// startNode runs the Node authorizer over a fake API holding objs, and
// waits for its graph to sync.
func startNode(t *testing.T, feed *revision.Feed, objs ...*corev1.Pod) (*fake.Clientset, engines) {
	t.Helper()
	client := fake.NewClientset()
	for _, p := range objs {
		if _, err := client.CoreV1().Pods(p.Namespace).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	revs := newPolicyRevisions(feed)
	a, w := startNodeAuthorizer(ctx, client, informers.NewSharedInformerFactory(client, 0), revs.source())
	for deadline := time.Now().Add(10 * time.Second); w.ready(ctx) != nil; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("node graph not synced within 10s")
		}
	}
	return client, engines{authorizer: stamped(a, revs), rules: unionRules(nil)}
}

func TestNodeMode(t *testing.T) {
	_, e := startNode(t, revision.NewFeed(), podOn("web", "node1", "web-secret", "web-config"), podOn("db", "node2", "db-secret", "db-config"))
	node1 := user("system:node:node1", "system:nodes", "system:authenticated")
	checkBoth(t, e, []engineCase{
		{"own pod's secret", resourceReq(node1, "get", "ns1", "secrets", "web-secret"), authz.DecisionAllow, false},
		{"own pod's configmap", resourceReq(node1, "get", "ns1", "configmaps", "web-config"), authz.DecisionAllow, false},
		{"other node's pod's secret", resourceReq(node1, "get", "ns1", "secrets", "db-secret"), authz.DecisionNoOpinion, false},
		{"list secrets", resourceReq(node1, "list", "ns1", "secrets", ""), authz.DecisionNoOpinion, false},
		{"own node", resourceReq(node1, "get", "", "nodes", "node1"), authz.DecisionAllow, false},
		{"all nodes, without a field selector", resourceReq(node1, "list", "", "nodes", ""), authz.DecisionNoOpinion, false},
		{"static node rule", resourceReq(node1, "create", "ns1", "events", ""), authz.DecisionAllow, false},
		{"not a node", resourceReq(user("bob", "system:authenticated"), "get", "ns1", "secrets", "web-secret"), authz.DecisionNoOpinion, false},
		{"node name without the group", resourceReq(user("system:node:node1"), "get", "ns1", "secrets", "web-secret"), authz.DecisionNoOpinion, false},
	})
}

// TestNodeGraphRevision: a pod moving off the node ends the node's access
// and moves the revision to the change's, so the aggregator drops the
// cached allow; a change the graph ignores (status) leaves it alone.
func TestNodeGraphRevision(t *testing.T) {
	feed := revision.NewFeed()
	client, e := startNode(t, feed, podOn("web", "node1", "web-secret", "web-config"))
	secret := resourceReq(user("system:node:node1", "system:nodes"), "get", "ns1", "secrets", "web-secret")
	if d := decision(t, e.authorizer, secret); d != authz.DecisionAllow {
		t.Fatalf("before: %v, want Allow", d)
	}
	waitForRevision(t, feed, 10)

	// The fake API keeps the resourceVersion it is given.
	pods := client.CoreV1().Pods("ns1")
	status := podOn("web", "node1", "web-secret", "web-config")
	status.ResourceVersion, status.Status.Phase = "20", corev1.PodRunning
	if _, err := pods.UpdateStatus(context.Background(), status, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if rev, _ := feed.Current(); rev != 10 {
		t.Errorf("a status update moved the revision to %d", rev)
	}
	moved := podOn("web", "node2", "web-secret", "web-config")
	moved.ResourceVersion = "30"
	if _, err := pods.Update(context.Background(), moved, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForRevision(t, feed, 30)
	if res, _ := e.authorizer.Authorize(t.Context(), secret); res.Decision != authz.DecisionNoOpinion || res.Revision != 30 {
		t.Errorf("after the move: %v at %d, want NoOpinion at 30", res.Decision, res.Revision)
	}
}

// TestNodeRules: as kube's node authorizer says, a node's rules cannot be
// listed (incomplete), and anyone else gets none from it.
func TestNodeRules(t *testing.T) {
	client := fake.NewClientset()
	a, _ := startNodeAuthorizer(t.Context(), client, informers.NewSharedInformerFactory(client, 0),
		newPolicyRevisions(revision.NewFeed()).source())
	rules := listedRules(a)
	if rules == nil {
		t.Fatal("the Node mode lists no rules")
	}
	if got := rules(user("system:node:n1", "system:nodes"), "ns1"); !got.incomplete {
		t.Errorf("a node's rules: %+v, want incomplete", got)
	}
	if got := rules(user("bob"), "ns1"); got.incomplete || len(got.resource)+len(got.nonResource) != 0 {
		t.Errorf("bob's rules: %+v, want none, complete", got)
	}
}
