package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// Prefixes of the etcd keys the tests look at.
const (
	configMapsPrefix  = "/registry/core/configmaps/"
	secretsPrefix     = "/registry/core/secrets/"
	servicesPrefix    = "/registry/core/services/"
	namespacesPrefix  = "/registry/core/namespaces/"
	deploymentsPrefix = "/registry/apps/deployments/"
)

// rootCAConfigMap is the ConfigMap the root CA publisher keeps in every
// namespace of a stack whose registry has --root-ca-file; notRootCA is a
// field selector leaving it out of a list or watch that counts what a test
// wrote.
const (
	rootCAConfigMap = "kube-root-ca.crt"
	notRootCA       = "metadata.name!=" + rootCAConfigMap
)

// ctx returns a context that ends with the test, bounded so that a hung
// request fails the test instead of the whole run.
func ctx(t testing.TB) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}

// createConfigMap creates the ConfigMap name holding data through cms,
// the starting object of many tests, and returns it as stored.
func createConfigMap(t testing.TB, cms typedcorev1.ConfigMapInterface, name string, data map[string]string) *corev1.ConfigMap {
	t.Helper()
	cm, err := cms.Create(ctx(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

// snapshot reads every key under the given prefixes with its mod revision.
func snapshot(t testing.TB, r *framework.Registry, prefixes ...string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, p := range prefixes {
		for k, v := range r.Etcd.Snapshot(t, p) {
			out[k] = v
		}
	}
	return out
}

// assertSameSnapshot fails the test when two snapshots differ, naming the
// keys that were added, removed or rewritten.
func assertSameSnapshot(t testing.TB, before, after map[string]int64) {
	t.Helper()
	var diffs []string
	for k, v := range before {
		switch w, ok := after[k]; {
		case !ok:
			diffs = append(diffs, "removed "+k)
		case w != v:
			diffs = append(diffs, fmt.Sprintf("rewritten %s (mod revision %d -> %d)", k, v, w))
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			diffs = append(diffs, "added "+k)
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		t.Errorf("etcd changed:\n  %s", strings.Join(diffs, "\n  "))
	}
}

// etcdValue reads one key straight from etcd; ok is false when it is absent.
func etcdValue(t testing.TB, r *framework.Registry, key string) (map[string]any, bool) {
	t.Helper()
	resp, err := r.Etcd.Client.Get(ctx(t), key)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) == 0 {
		return nil, false
	}
	m := map[string]any{}
	if err := json.Unmarshal(resp.Kvs[0].Value, &m); err != nil {
		t.Fatalf("%s holds no JSON object: %v", key, err)
	}
	return m, true
}

// etcdRevision is etcd's current revision.
func etcdRevision(t testing.TB, r *framework.Registry) int64 {
	t.Helper()
	resp, err := r.Etcd.Client.Get(ctx(t), "/registry/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

// requireOpenAPI skips the test when the registry serves no OpenAPI
// documents yet: kubectl's default validation, explain and strict field
// validation all read them.
func requireOpenAPI(t testing.TB, r *framework.Registry) {
	t.Helper()
	for _, path := range []string{"/openapi/v3", "/openapi/v2"} {
		resp, err := http.Get(r.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode == http.StatusNotFound {
			t.Skipf("the registry answers 404 for %s: OpenAPI is not served yet, so kubectl cannot validate or explain", path)
		}
	}
}

// controllerRunning reports whether the named registry controller holds
// its Lease, giving it a few seconds to win it after start-up.
func controllerRunning(t testing.TB, r *framework.Registry, name string) bool {
	t.Helper()
	c := r.Client(t)
	lease := "kubesplit-" + name + "-controller"
	return polltest.Holds(t, 5*time.Second, func(ctx context.Context) (bool, error) {
		l, err := c.CoordinationV1().Leases("kube-system").Get(ctx, lease, metav1.GetOptions{})
		return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "", nil
	})
}

// lines splits command output into its non-empty lines.
func lines(out string) []string {
	var res []string
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimSpace(l) != "" {
			res = append(res, l)
		}
	}
	return res
}

// names returns kubectl -o name output as a sorted list.
func names(out string) []string {
	res := lines(out)
	sort.Strings(res)
	return res
}
