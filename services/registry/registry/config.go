// Package registry is kubesplit's registry service: the only owner of
// etcd, serving the Kubernetes REST API of every resource. Start runs it
// in-process, as the binary and the tests do.
package registry

import (
	"cmp"
	"crypto"
	"crypto/tls"
	"errors"
	"net"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"

	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/metrics"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/registry/internal/controller"
	"github.com/kubesplit/kubesplit/services/registry/internal/kubelet"
	"github.com/kubesplit/kubesplit/services/registry/internal/serviceip"
)

// Config is everything the registry needs to run.
type Config struct {
	// Endpoint is where the registry listens (BindAddress, port 0 picking
	// a free one, or an inherited Listener), and with which certificate
	// when it serves HTTPS.
	serve.Endpoint
	// EtcdServers are the client URLs of an external etcd cluster. Empty
	// means an etcd embedded in this process, keeping its data in DataDir.
	EtcdServers []string
	// EtcdTLS, when set, is how the registry speaks TLS to EtcdServers
	// (https URLs): the CA it trusts and the client certificate it shows.
	EtcdTLS *tls.Config
	// DataDir holds the embedded etcd's data.
	DataDir string
	// CompactionInterval is how often etcd's history is compacted; 0 never.
	CompactionInterval time.Duration
	// EventTTL is how long Events live after their last update.
	EventTTL time.Duration
	// IdentityKeys are the aggregator's public keys. Every request but the
	// health checks must then carry the aggregator's signed identity
	// assertion (DESIGN.md, "Trust between hops"); anything else is 401.
	IdentityKeys []crypto.PublicKey
	// IdentityIssuer is the issuer those assertions name.
	IdentityIssuer string
	// InsecureAllowUnauthenticated serves requests without any identity
	// check instead, for development; it is refused on anything but a
	// loopback address.
	InsecureAllowUnauthenticated bool
	// DisableControllers leaves out the housekeeping controllers.
	DisableControllers bool
	// Controllers picks the housekeeping controllers in
	// kube-controller-manager's --controllers syntax ("*,-name"); empty
	// means all of them.
	Controllers []string
	// RESTConfig reaches the API through the aggregator, with the
	// registry's own credentials; it is asked who may read /metrics and
	// /debug/pprof (TokenReview, SubjectAccessReview). Nil lets nobody:
	// the registry answers API requests only from the aggregator, but a
	// scraper reaches each replica directly.
	RESTConfig *rest.Config
	// Metrics collects what /metrics serves; nil means a new registry.
	// RemoteAdmission's calls are timed on it when given the same one.
	Metrics *prometheus.Registry
	// Admission is the admission stage every write passes: local
	// admitters in a fused binary, or RemoteAdmission's webhooks and
	// rules. The zero value runs none, as kube with no admission plugin.
	Admission Admission
	// ServiceClusterIPRange is kube-apiserver's --service-cluster-ip-range:
	// the CIDR Services' cluster IPs come from, or an IPv4 and an IPv6 one
	// separated by a comma for dual-stack; empty means 10.0.0.0/24.
	ServiceClusterIPRange string
	// ServiceNodePortRange is --service-node-port-range; empty means
	// 30000-32767.
	ServiceNodePortRange string
	// RootCAFile is kube-controller-manager's --root-ca-file: the CA
	// bundle that verifies the API server (the aggregator), published in
	// every namespace as the ConfigMap kube-root-ca.crt. Empty publishes
	// none.
	RootCAFile string
	// AllowPrivileged is kube-apiserver's --allow-privileged: whether a
	// pod's containers may be privileged (kube's pod validation reads it
	// process-wide, so the first registry in a process sets it).
	AllowPrivileged bool
	// Kubelet says how kubelets are reached for pods/log, exec, attach,
	// portforward and nodes/proxy (kube-apiserver's --kubelet-* flags).
	Kubelet kubelet.Config
}

// DefaultIdentityIssuer is the issuer of the aggregator's assertions.
const DefaultIdentityIssuer = identity.DefaultIssuer

// Audience is the name assertions for the registry are addressed to.
const Audience = "registry"

// Defaults fills in unset fields.
func (c *Config) Defaults() {
	if c.BindAddress == "" && c.Listener == nil {
		c.BindAddress = "127.0.0.1:6444"
	}
	if c.EventTTL == 0 {
		c.EventTTL = time.Hour
	}
	if c.IdentityIssuer == "" {
		c.IdentityIssuer = DefaultIdentityIssuer
	}
	if c.Metrics == nil {
		c.Metrics = metrics.NewRegistry()
	}
}

// serviceIPs is the Service networking the ranges configure.
func (c *Config) serviceIPs() (serviceip.Config, error) {
	cidrs, err := serviceip.ParseServiceCIDRs(cmp.Or(c.ServiceClusterIPRange, serviceip.DefaultServiceClusterIPRange))
	if err != nil {
		return serviceip.Config{}, err
	}
	ports, err := serviceip.ParseNodePortRange(cmp.Or(c.ServiceNodePortRange, serviceip.DefaultServiceNodePortRange))
	if err != nil {
		return serviceip.Config{}, err
	}
	return serviceip.Config{ServiceCIDRs: cidrs, NodePorts: ports}, nil
}

// Validate rejects configurations the registry cannot run safely.
func (c *Config) Validate() error {
	address := c.BindAddress
	if c.Listener != nil {
		address = c.Listener.Addr().String()
	}
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	switch {
	case c.InsecureAllowUnauthenticated && len(c.IdentityKeys) > 0:
		return errors.New("--insecure-allow-unauthenticated and --identity-public-key-file exclude each other")
	case c.InsecureAllowUnauthenticated:
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return errors.New("--insecure-allow-unauthenticated refuses to listen on " + host + ": use a loopback address")
		}
	case len(c.IdentityKeys) == 0:
		return errors.New("the registry needs the aggregator's public key (--identity-public-key-file), " +
			"or --insecure-allow-unauthenticated on a loopback address for development")
	}
	if len(c.EtcdServers) == 0 && c.DataDir == "" {
		return errors.New("an embedded etcd needs --data-dir")
	}
	if _, err := c.serviceIPs(); err != nil {
		return err
	}
	if c.RootCAFile != "" {
		if _, err := readRootCA(c.RootCAFile); err != nil {
			return err
		}
	}
	return controller.CheckNames(c.Controllers)
}
