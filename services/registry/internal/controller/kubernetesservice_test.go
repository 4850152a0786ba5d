package controller_test

import (
	"context"
	"net/netip"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesplit/kubesplit/pkg/endpointlease"
	"github.com/kubesplit/kubesplit/pkg/polltest"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller"
	"github.com/kubesplit/kubesplit/services/registry/internal/serviceip"
)

// writeLease writes the endpoint lease an aggregator at addr:port would,
// renewed at renewed and lasting d.
func writeLease(t *testing.T, c kubernetes.Interface, addr string, port int32, d time.Duration, renewed time.Time) {
	t.Helper()
	e := endpointlease.Endpoint{Address: netip.MustParseAddr(addr), Port: port}
	leases := c.CoordinationV1().Leases(endpointlease.Namespace)
	cur, err := leases.Get(t.Context(), endpointlease.Name(e), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = leases.Create(t.Context(), endpointlease.New(e, addr, d, renewed), metav1.CreateOptions{})
	} else if err == nil {
		endpointlease.Renew(cur, e, addr, d, renewed)
		_, err = leases.Update(t.Context(), cur, metav1.UpdateOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
}

// sliceAddresses are the EndpointSlice's addresses with its one port, or
// what is wrong with it.
func sliceAddresses(ctx context.Context, c kubernetes.Interface) ([]string, int32, error) {
	s, err := c.DiscoveryV1().EndpointSlices("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return nil, 0, err
	}
	var addrs []string
	for _, e := range s.Endpoints {
		addrs = append(addrs, e.Addresses...)
	}
	var port int32
	if len(s.Ports) == 1 && s.Ports[0].Port != nil {
		port = *s.Ports[0].Port
	}
	return addrs, port, nil
}

func waitSlice(t *testing.T, c kubernetes.Interface, what string, want []string, wantPort int32) {
	t.Helper()
	polltest.UntilContext(t, controllerWait, what, func(ctx context.Context) (bool, error) {
		addrs, port, err := sliceAddresses(ctx, c)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return slices.Equal(addrs, want) && (len(want) == 0 || port == wantPort), err
	})
}

// The kubernetes Service is created at the first address of the service
// range, which no other Service may take; its Endpoints and EndpointSlice
// list every live lease's address, in kube's shapes; a lease that lapses
// leaves them, an expired one never enters, and an edited Service is put
// back.
func TestKubernetesService(t *testing.T) {
	cfg := startRegistry(t)
	c := kubernetes.NewForConfigOrDie(cfg)
	ip := serviceip.KubernetesServiceIP(netip.MustParsePrefix(serviceip.DefaultServiceClusterIPRange))
	runConfigured(t, controller.Config{REST: cfg, Identity: "r1", KubernetesServiceIP: ip,
		Controllers: []string{"kubernetes-service-controller"}})

	// Run makes kube-system, where its own leases are.
	polltest.UntilContext(t, controllerWait, "kube-system made", func(ctx context.Context) (bool, error) {
		_, err := c.CoreV1().Namespaces().Get(ctx, endpointlease.Namespace, metav1.GetOptions{})
		return err == nil, nil
	})
	writeLease(t, c, "10.9.0.2", 6443, time.Hour, time.Now())
	writeLease(t, c, "10.9.0.1", 6443, time.Hour, time.Now())
	// Renewed long ago: lapsed before the controller ever saw it.
	writeLease(t, c, "10.9.0.3", 6443, time.Second, time.Now().Add(-time.Hour))
	waitSlice(t, c, "both live aggregators listed", []string{"10.9.0.1", "10.9.0.2"}, 6443)

	svc, err := c.CoreV1().Services("default").Get(t.Context(), "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantPorts := []corev1.ServicePort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(6443)}}
	if svc.Spec.ClusterIP != ip.String() || !slices.Equal(svc.Spec.Ports, wantPorts) || svc.Spec.Type != corev1.ServiceTypeClusterIP ||
		svc.Spec.SessionAffinity != corev1.ServiceAffinityNone || svc.Spec.Selector != nil ||
		svc.Labels["component"] != "apiserver" || svc.Labels["provider"] != "kubernetes" {
		t.Errorf("kubernetes Service: clusterIP %s ports %v type %s affinity %s selector %v labels %v",
			svc.Spec.ClusterIP, svc.Spec.Ports, svc.Spec.Type, svc.Spec.SessionAffinity, svc.Spec.Selector, svc.Labels)
	}
	ep, err := c.CoreV1().Endpoints("default").Get(t.Context(), "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ep.Labels[discoveryv1.LabelSkipMirror] != "true" || len(ep.Subsets) != 1 || len(ep.Subsets[0].Addresses) != 2 ||
		ep.Subsets[0].Addresses[0].IP != "10.9.0.1" || len(ep.Subsets[0].Ports) != 1 ||
		ep.Subsets[0].Ports[0] != (corev1.EndpointPort{Name: "https", Port: 6443, Protocol: corev1.ProtocolTCP}) {
		t.Errorf("kubernetes Endpoints: labels %v subsets %+v", ep.Labels, ep.Subsets)
	}
	slice, err := c.DiscoveryV1().EndpointSlices("default").Get(t.Context(), "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if slice.Labels[discoveryv1.LabelServiceName] != "kubernetes" || slice.AddressType != discoveryv1.AddressTypeIPv4 ||
		slice.Endpoints[0].Conditions.Ready == nil || !*slice.Endpoints[0].Conditions.Ready || *slice.Ports[0].Name != "https" {
		t.Errorf("kubernetes EndpointSlice: %+v", slice)
	}

	t.Run("the cluster IP is kept from other Services", func(t *testing.T) {
		other := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "squatter", Namespace: "default"},
			Spec: corev1.ServiceSpec{ClusterIP: ip.String(), Ports: []corev1.ServicePort{{Port: 80}}}}
		if _, err := c.CoreV1().Services("default").Create(t.Context(), other, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
			t.Errorf("a Service asking for %s: %v, want Invalid", ip, err)
		}
	})

	t.Run("a lapsing lease leaves", func(t *testing.T) {
		writeLease(t, c, "10.9.0.2", 6443, time.Second, time.Now())
		waitSlice(t, c, "the lapsed aggregator gone", []string{"10.9.0.1"}, 6443)
	})

	t.Run("an edited Service is put back", func(t *testing.T) {
		svc, err := c.CoreV1().Services("default").Get(t.Context(), "kubernetes", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		svc.Spec.Ports[0].Port = 8443
		if _, err := c.CoreV1().Services("default").Update(t.Context(), svc, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		// A lease change makes the controller look at once.
		writeLease(t, c, "10.9.0.4", 6443, time.Hour, time.Now())
		polltest.UntilContext(t, controllerWait, "port 443 back", func(ctx context.Context) (bool, error) {
			svc, err := c.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
			return err == nil && svc.Spec.Ports[0].Port == 443, err
		})
	})
}

// kube-root-ca.crt appears in every live namespace with kube's
// annotation, comes back when deleted, is put right when edited, and is
// not written into a namespace being deleted.
func TestRootCAPublisher(t *testing.T) {
	cfg := startRegistry(t)
	c := kubernetes.NewForConfigOrDie(cfg)
	const ca = "-----BEGIN CERTIFICATE-----\nnot parsed here\n-----END CERTIFICATE-----\n"
	// Without the namespace controller a deleted namespace stays
	// Terminating, which the publisher must leave alone.
	runConfigured(t, controller.Config{REST: cfg, Identity: "r1", RootCA: []byte(ca),
		Controllers: []string{"root-ca-certificate-publisher-controller"}})

	published := func(ns string) func(ctx context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			cm, err := c.CoreV1().ConfigMaps(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return err == nil && cm.Data["ca.crt"] == ca && len(cm.Data) == 1 &&
				cm.Annotations["kubernetes.io/description"] != "", err
		}
	}
	createNamespace(t, c, "fresh")
	polltest.UntilContext(t, controllerWait, "published in a new namespace", published("fresh"))

	if err := c.CoreV1().ConfigMaps("fresh").Delete(t.Context(), "kube-root-ca.crt", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.UntilContext(t, controllerWait, "published again after deletion", published("fresh"))

	cm, err := c.CoreV1().ConfigMaps("fresh").Get(t.Context(), "kube-root-ca.crt", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data = map[string]string{"ca.crt": "forged"}
	delete(cm.Annotations, "kubernetes.io/description")
	if _, err := c.CoreV1().ConfigMaps("fresh").Update(t.Context(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	polltest.UntilContext(t, controllerWait, "put right after an edit", published("fresh"))

	if err := c.CoreV1().Namespaces().Delete(t.Context(), "fresh", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	// Namespaces are watched in order: once one created after the
	// deletion is published, the publisher knows "fresh" is terminating.
	createNamespace(t, c, "later")
	polltest.UntilContext(t, controllerWait, "published in a later namespace", published("later"))
	if err := c.CoreV1().ConfigMaps("fresh").Delete(t.Context(), "kube-root-ca.crt", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	createNamespace(t, c, "last")
	polltest.UntilContext(t, controllerWait, "published in the last namespace", published("last"))
	if ok, _ := published("fresh")(t.Context()); ok {
		t.Error("kube-root-ca.crt written into a terminating namespace")
	}
}
