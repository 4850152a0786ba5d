package fused

import (
	"errors"
	"log/slog"

	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/admission/admission"
	"github.com/kubesplit/kubesplit/services/aggregator/aggregator"
	"github.com/kubesplit/kubesplit/services/registry/registry"
)

// Config configures the fused composition. Flags follow kube-apiserver's
// names, as the split binaries' do.
type Config struct {
	// Endpoint is where the aggregator, the only public endpoint, serves
	// HTTPS (its certificate generated under CertDir unless given).
	serve.Endpoint
	// CertDir holds the generated serving CA and certificate, the identity
	// key and the service-account signing key. Required.
	CertDir string
	// EtcdServers are an external etcd cluster's client URLs; empty means
	// etcd embedded, its data under DataDir.
	EtcdServers []string
	DataDir     string
	// TokenAuthFile is kube's --token-auth-file: who may call the API.
	TokenAuthFile string
	// AnonymousAuth serves requests without credentials as
	// system:anonymous.
	AnonymousAuth bool
	// AuthorizationModes are authz's engines (--authorization-mode);
	// empty means RBAC, unless AuthorizationConfigFile is given.
	AuthorizationModes []string
	// AuthorizationConfigFile, AuthorizationPolicyFile, CasbinModel and
	// CasbinPolicy are authz's --authorization-config,
	// --authorization-policy-file, --casbin-model and --casbin-policy.
	AuthorizationConfigFile, AuthorizationPolicyFile, CasbinModel, CasbinPolicy string
	// EnableAdmissionPlugins and DisableAdmissionPlugins are kube's
	// --enable-admission-plugins and --disable-admission-plugins.
	EnableAdmissionPlugins, DisableAdmissionPlugins []string
	// Registry holds the registry's options that kube-apiserver takes as
	// flags (registry.AddKubeFlags: Service ranges, kubelet connections,
	// controllers, the root CA); the rest of it is the fused server's.
	Registry registry.Config
	// Aggregator holds the aggregator's endpoint-lease and concurrency
	// options (aggregator.AddEndpointFlags, AddConcurrencyFlags); the rest of it is the fused server's.
	Aggregator aggregator.Config
	// DefaultTolerations are kube's --default-not-ready-toleration-seconds
	// and --default-unreachable-toleration-seconds; nil means 300 each.
	DefaultTolerations *admission.TolerationSeconds
	// Log receives the services' logs; nil means slog.Default().
	Log *slog.Logger
}

func (cfg Config) validate() error {
	switch {
	case cfg.CertDir == "":
		return errors.New("fused: a cert dir is required")
	case len(cfg.EtcdServers) == 0 && cfg.DataDir == "":
		return errors.New("fused: an embedded etcd needs a data dir")
	}
	return nil
}
