package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/test/e2e/framework"
)

// endpointLease is the short lease duration the test's aggregators keep,
// so a dead one leaves quickly.
const endpointLease = 3 * time.Second

// TestKubernetesServiceAndRootCA: the kubernetes Service sits at the first
// address of the service range and its EndpointSlice lists every live
// aggregator at its advertise address; a replica that dies leaves within
// its lease; every namespace gets kube-root-ca.crt, whose ca.crt verifies
// the aggregator; and the objects have kube-apiserver's shapes.
func TestKubernetesServiceAndRootCA(t *testing.T) {
	lease := "--endpoint-lease-duration=" + endpointLease.String()
	s := framework.StartStack(t, framework.StackOptions{Args: map[string][]string{framework.StageAggregator: {lease}}})
	admin := s.Client(t, s.AdminToken)
	main := advertised(t, framework.StackAdvertiseAddress, s.Aggregator.URL)

	t.Run("Service and EndpointSlice", func(t *testing.T) {
		waitEndpoints(t, admin, 30*time.Second, main)
		svc, err := admin.CoreV1().Services("default").Get(ctx(t), "kubernetes", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// The registry's --service-cluster-ip-range is 10.0.0.0/24.
		if svc.Spec.ClusterIP != "10.0.0.1" || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 443 ||
			svc.Spec.Ports[0].TargetPort.IntValue() != int(main.port) {
			t.Errorf("kubernetes Service: clusterIP %s ports %+v, want 10.0.0.1 443->%d", svc.Spec.ClusterIP, svc.Spec.Ports, main.port)
		}
	})

	t.Run("a second replica joins and a dead one leaves", func(t *testing.T) {
		// kube's endpoints hold one port: the replica serves the same
		// one, on another loopback address.
		second := s.StartAggregatorReplica(t, "--bind-address", fmt.Sprintf("127.0.0.2:%d", main.port),
			"--advertise-address", "198.51.100.2", lease)
		waitEndpoints(t, admin, 30*time.Second, main, endpoint{"198.51.100.2", main.port})
		// Killed, it cannot remove its lease: it must lapse.
		if err := syscall.Kill(second.PID(), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		waitEndpoints(t, admin, endpointLease+5*time.Second, main)
		t.Logf("the killed replica left after %v (lease %v)", time.Since(killed).Round(time.Millisecond), endpointLease)
		second.Stop(t)
	})

	t.Run("kube-root-ca.crt", func(t *testing.T) {
		ns := "root-ca-e2e"
		if _, err := admin.CoreV1().Namespaces().Create(ctx(t), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		cm := waitRootCA(t, admin, ns)
		verifyServing(t, s.Aggregator.URL, []byte(cm.Data["ca.crt"]))
		if err := admin.CoreV1().ConfigMaps(ns).Delete(ctx(t), rootCAConfigMap, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		waitRootCA(t, admin, ns)
	})

	t.Run("shapes match kube-apiserver's", func(t *testing.T) {
		dir, err := framework.KubeBinDir()
		if err == nil {
			_, err = os.Stat(filepath.Join(dir, "kube-apiserver"))
		}
		if err != nil {
			t.Skipf("no kube-apiserver to compare with: %v", err)
		}
		k := framework.StartKubeAPIServer(t, "--endpoint-reconciler-type=lease", "--advertise-address=198.51.100.9")
		kube := k.Client(t)
		polltest.Until(t, 30*time.Second, "kube-apiserver's kubernetes EndpointSlice", func() bool {
			_, err := kube.DiscoveryV1().EndpointSlices("default").Get(ctx(t), "kubernetes", metav1.GetOptions{})
			return err == nil
		})
		compareShapes(t, kube, admin)
	})
}

type endpoint struct {
	address string
	port    int32
}

// advertised is the endpoint of an aggregator serving at rawURL that
// advertises address.
func advertised(t *testing.T, address, rawURL string) endpoint {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	_, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	var p int32
	fmt.Sscan(port, &p)
	return endpoint{address, p}
}

// waitEndpoints waits until the kubernetes EndpointSlice lists exactly
// want, ready.
func waitEndpoints(t *testing.T, c kubernetes.Interface, within time.Duration, want ...endpoint) {
	t.Helper()
	var got []endpoint
	polltest.Until(t, within, fmt.Sprintf("the kubernetes EndpointSlice listing %v", want), func() bool {
		s, err := c.DiscoveryV1().EndpointSlices("default").Get(ctx(t), "kubernetes", metav1.GetOptions{})
		if err != nil || len(s.Ports) != 1 || s.Ports[0].Port == nil {
			return false
		}
		got = got[:0]
		for _, e := range s.Endpoints {
			if e.Conditions.Ready != nil && *e.Conditions.Ready {
				for _, a := range e.Addresses {
					got = append(got, endpoint{a, *s.Ports[0].Port})
				}
			}
		}
		return slices.Equal(got, want)
	})
}

// waitRootCA waits for kube-root-ca.crt in ns and returns it.
func waitRootCA(t *testing.T, c kubernetes.Interface, ns string) *corev1.ConfigMap {
	t.Helper()
	var cm *corev1.ConfigMap
	polltest.Until(t, 30*time.Second, "kube-root-ca.crt in "+ns, func() bool {
		var err error
		cm, err = c.CoreV1().ConfigMaps(ns).Get(ctx(t), rootCAConfigMap, metav1.GetOptions{})
		return err == nil
	})
	if cm.Annotations["kubernetes.io/description"] == "" {
		t.Errorf("kube-root-ca.crt has no kubernetes.io/description: %v", cm.Annotations)
	}
	return cm
}

// verifyServing checks that bundle verifies the serving certificate at
// rawURL, as a pod's client would.
func verifyServing(t *testing.T, rawURL string, bundle []byte) {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(bundle) {
		t.Fatalf("ca.crt holds no certificate: %q", bundle)
	}
	u, _ := url.Parse(rawURL)
	conn, err := tls.Dial("tcp", u.Host, &tls.Config{RootCAs: pool, ServerName: u.Hostname()})
	if err != nil {
		t.Fatalf("ca.crt does not verify the aggregator: %v", err)
	}
	conn.Close()
}

// compareShapes checks that kubesplit's kubernetes Service, Endpoints and
// EndpointSlice have what kube-apiserver's have, but for the addresses
// and the target port.
func compareShapes(t *testing.T, kube, ours kubernetes.Interface) {
	t.Helper()
	c := context.Background()
	get := func(k kubernetes.Interface) (*corev1.Service, *corev1.Endpoints, *discoveryv1.EndpointSlice) {
		svc, err1 := k.CoreV1().Services("default").Get(c, "kubernetes", metav1.GetOptions{})
		ep, err2 := k.CoreV1().Endpoints("default").Get(c, "kubernetes", metav1.GetOptions{})
		sl, err3 := k.DiscoveryV1().EndpointSlices("default").Get(c, "kubernetes", metav1.GetOptions{})
		for _, err := range []error{err1, err2, err3} {
			if err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
		}
		return svc, ep, sl
	}
	ks, ke, kl := get(kube)
	ss, se, sl := get(ours)
	port := func(p corev1.ServicePort) corev1.ServicePort { p.TargetPort.IntVal = 0; return p }
	check := func(what string, k, o any) {
		if fmt.Sprint(k) != fmt.Sprint(o) {
			t.Errorf("%s: kube-apiserver's %v, kubesplit's %v", what, k, o)
		}
	}
	check("Service labels", ks.Labels, ss.Labels)
	check("Service clusterIP", ks.Spec.ClusterIP, ss.Spec.ClusterIP)
	check("Service ports", port(ks.Spec.Ports[0]), port(ss.Spec.Ports[0]))
	check("Service type", ks.Spec.Type, ss.Spec.Type)
	check("Service sessionAffinity", ks.Spec.SessionAffinity, ss.Spec.SessionAffinity)
	check("Service ipFamilyPolicy", *ks.Spec.IPFamilyPolicy, *ss.Spec.IPFamilyPolicy)
	check("Service ipFamilies", ks.Spec.IPFamilies, ss.Spec.IPFamilies)
	check("Service internalTrafficPolicy", *ks.Spec.InternalTrafficPolicy, *ss.Spec.InternalTrafficPolicy)
	check("Service selector", ks.Spec.Selector, ss.Spec.Selector)
	check("Endpoints labels", ke.Labels, se.Labels)
	check("Endpoints ports", ke.Subsets[0].Ports[0].Name+string(ke.Subsets[0].Ports[0].Protocol),
		se.Subsets[0].Ports[0].Name+string(se.Subsets[0].Ports[0].Protocol))
	check("EndpointSlice labels", slices.Sorted(maps.Keys(kl.Labels)), slices.Sorted(maps.Keys(sl.Labels)))
	check("EndpointSlice label values", kl.Labels, sl.Labels)
	check("EndpointSlice addressType", kl.AddressType, sl.AddressType)
	check("EndpointSlice port", *kl.Ports[0].Name+string(*kl.Ports[0].Protocol), *sl.Ports[0].Name+string(*sl.Ports[0].Protocol))
	conditions := func(c discoveryv1.EndpointConditions) string {
		b, _ := json.Marshal(c)
		return string(b)
	}
	check("EndpointSlice conditions", conditions(kl.Endpoints[0].Conditions), conditions(sl.Endpoints[0].Conditions))
	check("EndpointSlice owners", kl.OwnerReferences, sl.OwnerReferences)
}
