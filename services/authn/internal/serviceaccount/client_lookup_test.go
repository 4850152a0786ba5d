package serviceaccount

import (
	"context"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func TestClientLookup(t *testing.T) {
	terminating := serviceAccount(ServiceAccountRef{Namespace: "team-a", Name: "leaving", UID: "uid-3"})
	terminating.DeletionTimestamp = &metav1.Time{Time: t0}
	terminating.Finalizers = []string{"example.com/hold"}
	client := fake.NewClientset(serviceAccount(testSA), terminating)
	l, err := NewClientLookup(client)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		name, uid string
		found     bool
	}{{"builder", "uid-1", true}, {"absent", "", false}, {"leaving", "", false}} {
		uid, found, err := l.ServiceAccount(ctx, "team-a", c.name)
		if uid != c.uid || found != c.found || err != nil {
			t.Errorf("%s: %q, %v, %v", c.name, uid, found, err)
		}
	}
	down := errors.New("connection refused")
	client.PrependReactor("get", "serviceaccounts", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, down
	})
	if _, found, err := l.ServiceAccount(ctx, "team-a", "builder"); found || !errors.Is(err, down) {
		t.Errorf("failing get: found %v, err %v", found, err)
	}
}
