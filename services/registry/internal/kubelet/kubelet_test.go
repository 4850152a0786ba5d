package kubelet

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// nodes is a NodeGetter over a map.
func nodes(m map[string]*corev1.Node) NodeGetter {
	return func(_ context.Context, name string) (*corev1.Node, error) {
		if n, ok := m[name]; ok {
			return n, nil
		}
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, name)
	}
}

// A node's kubelet is found as kube finds it: the first address of the
// preferred types, kube's order by default, the port the node reports or
// 10250, over HTTPS.
func TestConnectionInfo(t *testing.T) {
	m := map[string]*corev1.Node{
		"both": {Status: corev1.NodeStatus{
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeExternalIP, Address: "203.0.113.9"},
				{Type: corev1.NodeInternalIP, Address: "10.1.2.3"},
				{Type: corev1.NodeHostName, Address: "node-1"},
			},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10444}},
		}},
		"external": {Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "203.0.113.9"}}}},
	}
	for _, tc := range []struct {
		name, node       string
		types            []string
		wantHost, wantPt string
	}{
		{"kube's default order prefers the hostname", "both", nil, "node-1", "10444"},
		{"a preference for InternalIP", "both", []string{"InternalIP", "Hostname"}, "10.1.2.3", "10444"},
		{"no port reported: 10250", "external", nil, "203.0.113.9", "10250"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := New(Config{PreferredAddressTypes: tc.types}, nodes(m))
			if err != nil {
				t.Fatal(err)
			}
			info, err := g.GetConnectionInfo(context.Background(), types.NodeName(tc.node))
			if err != nil {
				t.Fatal(err)
			}
			if info.Scheme != "https" || info.Hostname != tc.wantHost || info.Port != tc.wantPt || info.Transport == nil {
				t.Errorf("got %s://%s:%s, want https://%s:%s", info.Scheme, info.Hostname, info.Port, tc.wantHost, tc.wantPt)
			}
		})
	}
}

// A node without an address of a preferred type, or no such node, is the
// error kube answers.
func TestConnectionInfoErrors(t *testing.T) {
	m := map[string]*corev1.Node{"external": {Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeExternalIP, Address: "203.0.113.9"}}}}}
	g, err := New(Config{PreferredAddressTypes: []string{"InternalIP"}}, nodes(m))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.GetConnectionInfo(context.Background(), "external"); err == nil {
		t.Error("a node with no InternalIP was reached")
	}
	if _, err := g.GetConnectionInfo(context.Background(), "missing"); !apierrors.IsNotFound(err) {
		t.Errorf("a missing node: %v, want NotFound", err)
	}
}

// A client certificate without its key is refused at start-up.
func TestCertificateNeedsKey(t *testing.T) {
	if _, err := New(Config{CertFile: "client.crt"}, nodes(nil)); err == nil {
		t.Error("a certificate without a key was accepted")
	}
}
