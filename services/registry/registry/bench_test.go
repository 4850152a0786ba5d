package registry

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/serve"
)

// benchServer starts a registry with an embedded etcd and a namespace of
// n ConfigMaps of 1 KiB, as the README's load figures use.
func benchServer(b *testing.B, n int, protobuf bool) (*kubernetes.Clientset, string) {
	b.Helper()
	srv, err := Start(context.Background(), Config{
		Endpoint: serve.Endpoint{BindAddress: "127.0.0.1:0"}, DataDir: b.TempDir(),
		InsecureAllowUnauthenticated: true, DisableControllers: true,
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	cfg := &rest.Config{Host: srv.URL(), QPS: -1}
	if protobuf {
		cfg.ContentType = "application/vnd.kubernetes.protobuf"
	}
	c := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	ns := "bench"
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := c.CoreV1().ConfigMaps(ns).Create(ctx, configMap(fmt.Sprintf("cm-%d", i)), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	return c, ns
}

func configMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"data": strings.Repeat("x", 1024)}}
}

// BenchmarkGet is a consistent get (no resourceVersion): a revision check
// against etcd plus a cache read, over HTTP.
func BenchmarkGet(b *testing.B) {
	for _, proto := range []bool{false, true} {
		b.Run(fmt.Sprintf("protobuf=%v", proto), func(b *testing.B) {
			c, ns := benchServer(b, 100, proto)
			var i atomic.Int64
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					name := fmt.Sprintf("cm-%d", i.Add(1)%100)
					if _, err := c.CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkList lists 100 ConfigMaps.
func BenchmarkList(b *testing.B) {
	c, ns := benchServer(b, 100, false)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l, err := c.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
			if err != nil || len(l.Items) != 100 {
				b.Fatal(err, len(l.Items))
			}
		}
	})
}

// BenchmarkCreate creates ConfigMaps.
func BenchmarkCreate(b *testing.B) {
	c, ns := benchServer(b, 0, false)
	var i atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.CoreV1().ConfigMaps(ns).Create(context.Background(), configMap(fmt.Sprintf("new-%d", i.Add(1))), metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkUpdate updates one ConfigMap per goroutine from the
// resourceVersion of its last write.
func BenchmarkUpdate(b *testing.B) {
	c, ns := benchServer(b, 0, false)
	var i atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		cm, err := c.CoreV1().ConfigMaps(ns).Create(context.Background(), configMap(fmt.Sprintf("upd-%d", i.Add(1))), metav1.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for pb.Next() {
			n++
			cm.Data["n"] = fmt.Sprint(n)
			if cm, err = c.CoreV1().ConfigMaps(ns).Update(context.Background(), cm, metav1.UpdateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
