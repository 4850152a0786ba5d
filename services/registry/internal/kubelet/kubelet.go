// Package kubelet finds a node's kubelet and the transport to reach it, as
// kube-apiserver does for the subresources it proxies to kubelets
// (pods/log, exec, attach, portforward, and the proxy subresources): the
// node's address of the first --kubelet-preferred-address-types kind it
// reports, the port its status.daemonEndpoints.kubeletEndpoint names, and
// HTTPS with the --kubelet-client-certificate/--kubelet-client-key and,
// when given, --kubelet-certificate-authority. It is kube's own
// NodeConnectionInfoGetter over the registry's Nodes.
package kubelet

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/kubelet/client"
)

// DefaultPort is the kubelet's port when a Node reports none (kube's
// ports.KubeletPort).
const DefaultPort = 10250

// DefaultPreferredAddressTypes is kube-apiserver's default
// --kubelet-preferred-address-types: the name the kubelet was told to use,
// then internal addresses (DNS before IP), then external ones.
var DefaultPreferredAddressTypes = []string{
	string(corev1.NodeHostName),
	string(corev1.NodeInternalDNS), string(corev1.NodeInternalIP),
	string(corev1.NodeExternalDNS), string(corev1.NodeExternalIP),
}

// Config says how kubelets are reached; its fields are kube-apiserver's
// flags of the same names.
type Config struct {
	// PreferredAddressTypes is --kubelet-preferred-address-types; empty
	// means DefaultPreferredAddressTypes.
	PreferredAddressTypes []string
	// CertFile and KeyFile are --kubelet-client-certificate and
	// --kubelet-client-key: the client certificate shown to kubelets.
	CertFile, KeyFile string
	// CAFile is --kubelet-certificate-authority. Empty skips verifying
	// kubelets' serving certificates, as kube does without it.
	CAFile string
}

// NodeGetter reads a Node by name.
type NodeGetter func(ctx context.Context, name string) (*corev1.Node, error)

// New returns what finds a node's kubelet: its address, port and the
// transports (verifying and not) to reach it.
func New(cfg Config, nodes NodeGetter) (client.ConnectionInfoGetter, error) {
	if (cfg.CertFile == "") != (cfg.KeyFile == "") {
		return nil, fmt.Errorf("--kubelet-client-certificate and --kubelet-client-key go together")
	}
	types := cfg.PreferredAddressTypes
	if len(types) == 0 {
		types = DefaultPreferredAddressTypes
	}
	return client.NewNodeConnectionInfoGetter(client.NodeGetterFunc(func(ctx context.Context, name string, _ metav1.GetOptions) (*corev1.Node, error) {
		return nodes(ctx, name)
	}), client.KubeletClientConfig{
		Port:                  DefaultPort,
		PreferredAddressTypes: types,
		TLSClientConfig:       client.KubeletTLSConfig{CertFile: cfg.CertFile, KeyFile: cfg.KeyFile, CAFile: cfg.CAFile},
	})
}

// DecodeNode reads a Node stored as JSON.
func DecodeNode(data []byte) (*corev1.Node, error) {
	node := &corev1.Node{}
	if err := json.Unmarshal(data, node); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return node, nil
}
