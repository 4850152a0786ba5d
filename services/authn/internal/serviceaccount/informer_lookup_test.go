package serviceaccount

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// serviceAccount is a ServiceAccount object for the fake clientset.
func serviceAccount(sa ServiceAccountRef) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: sa.Namespace, Name: sa.Name, UID: types.UID(sa.UID)}}
}

// startLookup starts an InformerLookup over a fake clientset holding objs,
// and returns once it has synced and its watch is open, so that changes
// made afterwards are seen (the fake's watch does not replay from a
// resourceVersion, so an earlier change would be lost).
func startLookup(t *testing.T, objs ...runtime.Object) (*InformerLookup, *fake.Clientset) {
	t.Helper()
	client := fake.NewClientset(objs...)
	watching := make(chan struct{})
	var once sync.Once
	client.PrependWatchReactor("serviceaccounts", func(action k8stesting.Action) (bool, watch.Interface, error) {
		w, err := client.Tracker().Watch(action.GetResource(), action.GetNamespace())
		once.Do(func() { close(watching) })
		return true, w, err
	})
	l, err := NewInformerLookup(client, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l.Start(ctx)
	waitCtx, cancelWait := context.WithTimeout(ctx, 10*time.Second)
	defer cancelWait()
	if err := l.WaitForSync(waitCtx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-watching:
	case <-waitCtx.Done():
		t.Fatal("informer never watched")
	}
	return l, client
}

func TestInformerLookupSeesDeletion(t *testing.T) {
	l, client := startLookup(t, serviceAccount(testSA))
	deleted := make(chan string, 1)
	l.OnDelete(func(namespace, name string) { deleted <- namespace + "/" + name })

	now := t0
	a := newTestAuthenticator(t, l, &now, p256Key().Public())
	token := issue(t, newTestIssuer(t, p256Key()), testSA, authenticationv1.TokenRequestSpec{})
	if _, ok, err := a.AuthenticateToken(context.Background(), token); !ok || err != nil {
		t.Fatalf("before deletion: ok %v, err %v", ok, err)
	}
	if err := client.CoreV1().ServiceAccounts(testSA.Namespace).Delete(context.Background(), testSA.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// The promise is that a deleted account is refused within a second.
	select {
	case got := <-deleted:
		if got != "team-a/builder" {
			t.Errorf("OnDelete(%s)", got)
		}
	case <-time.After(time.Second):
		t.Fatal("OnDelete not called within a second of the deletion")
	}
	if _, ok, err := a.AuthenticateToken(context.Background(), token); ok || err != nil {
		t.Errorf("after deletion: ok %v, err %v", ok, err)
	}
}

func TestInformerLookupSeesRecreation(t *testing.T) {
	l, client := startLookup(t, serviceAccount(testSA))
	added := make(chan string, 2)
	if _, err := l.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		added <- string(obj.(*corev1.ServiceAccount).UID)
	}}); err != nil {
		t.Fatal(err)
	}
	select { // the initial list, replayed to a late handler
	case <-added:
	case <-time.After(5 * time.Second):
		t.Fatal("initial list not replayed")
	}
	ctx := context.Background()
	if err := client.CoreV1().ServiceAccounts(testSA.Namespace).Delete(ctx, testSA.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	recreated := ServiceAccountRef{Namespace: testSA.Namespace, Name: testSA.Name, UID: "uid-2"}
	if _, err := client.CoreV1().ServiceAccounts(testSA.Namespace).Create(ctx, serviceAccount(recreated), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case uid := <-added:
		if uid != "uid-2" {
			t.Fatalf("added uid %s", uid)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("recreation not seen")
	}
	uid, found, err := l.ServiceAccount(ctx, testSA.Namespace, testSA.Name)
	if uid != "uid-2" || !found || err != nil {
		t.Errorf("lookup: %q, %v, %v", uid, found, err)
	}
}

func TestInformerLookupStates(t *testing.T) {
	terminating := serviceAccount(ServiceAccountRef{Namespace: "team-a", Name: "leaving", UID: "uid-3"})
	terminating.DeletionTimestamp = &metav1.Time{Time: t0}
	terminating.Finalizers = []string{"example.com/hold"}
	withSecrets := serviceAccount(testSA)
	withSecrets.Secrets = []corev1.ObjectReference{{Name: "builder-token"}}
	withSecrets.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{…}"}
	l, _ := startLookup(t, withSecrets, terminating)
	ctx := context.Background()
	cases := []struct {
		namespace, name, uid string
		found                bool
	}{
		{"team-a", "builder", "uid-1", true},
		{"team-a", "absent", "", false},
		{"team-b", "builder", "", false},
		{"team-a", "leaving", "", false},
	}
	for _, c := range cases {
		uid, found, err := l.ServiceAccount(ctx, c.namespace, c.name)
		if uid != c.uid || found != c.found || err != nil {
			t.Errorf("%s/%s: %q, %v, %v", c.namespace, c.name, uid, found, err)
		}
	}
	cached, err := l.lister.ServiceAccounts("team-a").Get("builder")
	if err != nil || cached.Secrets != nil || cached.Annotations != nil {
		t.Errorf("cached account not stripped: %+v, %v", cached, err)
	}
}

func TestInformerLookupNotSynced(t *testing.T) {
	l, err := NewInformerLookup(fake.NewClientset(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.ServiceAccount(context.Background(), "a", "b"); !errors.Is(err, ErrNotSynced) {
		t.Errorf("lookup before start: %v, want ErrNotSynced", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.WaitForSync(ctx); !errors.Is(err, ErrNotSynced) {
		t.Errorf("WaitForSync: %v, want ErrNotSynced", err)
	}
}

func TestInformerLookupReportsMissedDeletions(t *testing.T) {
	l, err := NewInformerLookup(fake.NewClientset(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	l.OnDelete(func(namespace, name string) { got = append(got, namespace+"/"+name) })

	old := serviceAccount(testSA)
	same := old.DeepCopy()
	same.Labels = map[string]string{"changed": "yes"}
	recreated := serviceAccount(ServiceAccountRef{Namespace: testSA.Namespace, Name: testSA.Name, UID: "uid-2"})
	terminating := old.DeepCopy()
	terminating.DeletionTimestamp = &metav1.Time{Time: t0}

	l.updated(old, same)        // an ordinary update: nothing to drop
	l.updated(old, recreated)   // deleted and recreated while the watch was down
	l.updated(old, terminating) // deletion started
	l.deleted(cache.DeletedFinalStateUnknown{Key: "team-b/gone", Obj: old})
	want := []string{"team-a/builder", "team-a/builder", "team-b/gone"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("OnDelete calls %v, want %v", got, want)
	}
}
