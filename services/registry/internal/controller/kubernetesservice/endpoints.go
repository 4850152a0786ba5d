package kubernetesservice

import (
	"context"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	endpointsv1 "k8s.io/kubernetes/pkg/api/v1/endpoints"
)

// ensureEndpoints writes the Endpoints and then the EndpointSlice listing
// addrs on port, as kube's lease reconciler and its EndpointsAdapter do.
func (c *Controller) ensureEndpoints(ctx context.Context, port int32, addrs []string) error {
	want := desiredEndpoints(port, addrs)
	client := c.client.CoreV1().Endpoints(metav1.NamespaceDefault)
	cur, err := client.Get(ctx, key, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		// Should another writer have created it meanwhile, the error
		// retries the sync, which then updates it.
		cur, err = client.Create(ctx, want, metav1.CreateOptions{})
	case err != nil:
		return err
	case cur.Labels[discoveryv1.LabelSkipMirror] != "true" || !apiequality.Semantic.DeepEqual(cur.Subsets, want.Subsets):
		cur = cur.DeepCopy()
		if cur.Labels == nil {
			cur.Labels = map[string]string{}
		}
		cur.Labels[discoveryv1.LabelSkipMirror] = "true"
		cur.Subsets = want.Subsets
		c.log.Info("resetting the kubernetes endpoints", "addresses", addrs, "port", port)
		cur, err = client.Update(ctx, cur, metav1.UpdateOptions{})
	}
	if err != nil {
		return err
	}
	return c.ensureEndpointSlice(ctx, sliceFromEndpoints(cur))
}

// desiredEndpoints is one subset of addrs on port, none without addresses.
// The label keeps kube's EndpointSlice mirroring controller away: the
// slice is written here.
func desiredEndpoints(port int32, addrs []string) *corev1.Endpoints {
	e := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{
		Name: key, Namespace: metav1.NamespaceDefault,
		Labels: map[string]string{discoveryv1.LabelSkipMirror: "true"},
	}}
	if len(addrs) == 0 {
		return e
	}
	subset := corev1.EndpointSubset{Ports: []corev1.EndpointPort{{Name: portName, Port: port, Protocol: corev1.ProtocolTCP}}}
	for _, a := range addrs {
		subset.Addresses = append(subset.Addresses, corev1.EndpointAddress{IP: a})
	}
	// Sorted as kube sorts them.
	e.Subsets = endpointsv1.RepackSubsets([]corev1.EndpointSubset{subset})
	return e
}

// sliceFromEndpoints is kube's endpointSliceFromEndpoints: named as the
// Service, labelled with it, IPv4 unless every address is IPv6, every
// address ready.
func sliceFromEndpoints(e *corev1.Endpoints) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Name: e.Name, Namespace: e.Namespace, Labels: map[string]string{discoveryv1.LabelServiceName: e.Name}},
		AddressType: discoveryv1.AddressTypeIPv4,
	}
	if len(e.Subsets) == 0 {
		return s
	}
	subset := e.Subsets[0]
	for _, p := range subset.Ports {
		s.Ports = append(s.Ports, discoveryv1.EndpointPort{Name: &p.Name, Port: &p.Port, Protocol: &p.Protocol})
	}
	all := append(append([]corev1.EndpointAddress{}, subset.Addresses...), subset.NotReadyAddresses...)
	if allIPv6(all) {
		s.AddressType = discoveryv1.AddressTypeIPv6
	}
	s.Endpoints = append(addresses(subset.Addresses, s.AddressType, true), addresses(subset.NotReadyAddresses, s.AddressType, false)...)
	return s
}

func allIPv6(addrs []corev1.EndpointAddress) bool {
	for _, a := range addrs {
		if ip, err := netip.ParseAddr(a.IP); err != nil || !ip.Is6() {
			return false
		}
	}
	return len(addrs) > 0
}

// addresses are the slice's endpoints for the addresses of its type.
func addresses(addrs []corev1.EndpointAddress, t discoveryv1.AddressType, ready bool) []discoveryv1.Endpoint {
	var out []discoveryv1.Endpoint
	for _, a := range addrs {
		ip, err := netip.ParseAddr(a.IP)
		if err != nil || ip.Is6() != (t == discoveryv1.AddressTypeIPv6) {
			continue
		}
		out = append(out, discoveryv1.Endpoint{
			Addresses: []string{a.IP}, Conditions: discoveryv1.EndpointConditions{Ready: &ready},
			TargetRef: a.TargetRef, NodeName: a.NodeName,
		})
	}
	return out
}

// ensureEndpointSlice writes want unless the slice already says the same;
// a change of address type cannot be an update, so it is a replacement.
func (c *Controller) ensureEndpointSlice(ctx context.Context, want *discoveryv1.EndpointSlice) error {
	client := c.client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault)
	cur, err := client.Get(ctx, want.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = client.Create(ctx, want, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	case err != nil:
		return err
	case cur.AddressType != want.AddressType:
		if err := client.Delete(ctx, want.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		_, err = client.Create(ctx, want, metav1.CreateOptions{})
		return err
	case apiequality.Semantic.DeepEqual(cur.Endpoints, want.Endpoints) &&
		apiequality.Semantic.DeepEqual(cur.Ports, want.Ports) &&
		apiequality.Semantic.DeepEqual(cur.Labels, want.Labels):
		return nil
	}
	want.ResourceVersion = cur.ResourceVersion
	_, err = client.Update(ctx, want, metav1.UpdateOptions{})
	return err
}
