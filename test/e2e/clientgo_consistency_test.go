package e2e

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// readYourWritesRounds is how many create-then-read rounds each case runs.
const readYourWritesRounds = 200

// TestClientGoReadYourWrites creates an object and at once gets and lists
// without a resourceVersion, 200 times: reads are served from a cache, but
// a consistent read waits until the cache holds every earlier write, so
// the object is always there. The same holds when the write goes to one
// registry replica and the reads to another.
func TestClientGoReadYourWrites(t *testing.T) {
	t.Parallel()
	r := framework.StartRegistry(t)
	writer := r.Client(t)

	t.Run("same registry", func(t *testing.T) {
		readYourWrites(t, writer, writer, "same")
	})
	t.Run("another replica", func(t *testing.T) {
		replica := r.StartReplica(t)
		readYourWrites(t, writer, replica.Client(t), "cross")
	})
}

func readYourWrites(t *testing.T, writer, reader kubernetes.Interface, prefix string) {
	t.Helper()
	w, rd := writer.CoreV1().ConfigMaps("default"), reader.CoreV1().ConfigMaps("default")
	for i := range readYourWritesRounds {
		name := fmt.Sprintf("%s-%03d", prefix, i)
		created := createConfigMap(t, w, name, map[string]string{"v": "1"})
		got, err := rd.Get(ctx(t), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("round %d: get right after create: %v", i, err)
		}
		if got.ResourceVersion != created.ResourceVersion {
			t.Fatalf("round %d: get returned resourceVersion %s, the create %s", i, got.ResourceVersion, created.ResourceVersion)
		}
		list, err := rd.List(ctx(t), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !listHas(list, name) {
			t.Fatalf("round %d: list right after create lacks %s (list at resourceVersion %s, create at %s)",
				i, name, list.ResourceVersion, created.ResourceVersion)
		}
		if mustInt(t, list.ResourceVersion) < mustInt(t, created.ResourceVersion) {
			t.Fatalf("round %d: list at resourceVersion %s is older than the create at %s", i, list.ResourceVersion, created.ResourceVersion)
		}
		// An update is read back as promptly, and so is a delete, every
		// tenth round to keep the run short.
		if i%10 == 0 {
			created.Data["v"] = "2"
			if _, err := w.Update(ctx(t), created, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
			if got, err := rd.Get(ctx(t), name, metav1.GetOptions{}); err != nil || got.Data["v"] != "2" {
				t.Fatalf("round %d: get right after update: %v %v", i, got.Data, err)
			}
			if err := w.Delete(ctx(t), name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := rd.Get(ctx(t), name, metav1.GetOptions{}); err == nil {
				t.Fatalf("round %d: get right after delete still finds %s", i, name)
			}
		}
	}
}

func listHas(list *corev1.ConfigMapList, name string) bool {
	for _, item := range list.Items {
		if item.Name == name {
			return true
		}
	}
	return false
}
