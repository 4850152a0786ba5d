// Command registry serves the Kubernetes REST API for kubesplit's resources
// from etcd. It is the only kubesplit service that talks to etcd.
package main

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/metrics"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/registry/registry"
)

func main() {
	cfg := registry.Config{}
	common := serve.Flags{}
	fs := pflag.NewFlagSet("registry", pflag.ContinueOnError)
	common.AddFlags(fs, "127.0.0.1:6444")
	fs.StringSliceVar(&cfg.EtcdServers, "etcd-servers", nil, "etcd client URLs (http, https or unix); empty starts an embedded etcd under --data-dir, reachable only by this process's user (a unix socket in a private directory)")
	etcdFiles := etcdTLSFiles{}
	fs.StringVar(&etcdFiles.ca, "etcd-cafile", "", "CA certificates the https --etcd-servers' certificates chain to; empty means the system's")
	fs.StringVar(&etcdFiles.cert, "etcd-certfile", "", "PEM client certificate shown to etcd (with --etcd-keyfile), for etcd's --client-cert-auth")
	fs.StringVar(&etcdFiles.key, "etcd-keyfile", "", "PEM private key of --etcd-certfile")
	fs.StringVar(&cfg.DataDir, "data-dir", ".run/etcd", "directory of the embedded etcd's data")
	fs.DurationVar(&cfg.CompactionInterval, "etcd-compaction-interval", 5*time.Minute, "how often to compact etcd's history (0 never)")
	fs.DurationVar(&cfg.EventTTL, "event-ttl", time.Hour, "how long Events are kept after their last update")
	registry.AddKubeFlags(fs, &cfg)
	identityKeys := fs.String("identity-public-key-file", "",
		"PEM file of the aggregator's public key(s): every request but health checks must carry its signed identity assertion")
	fs.StringVar(&cfg.IdentityIssuer, "identity-issuer", registry.DefaultIdentityIssuer, "issuer the aggregator's assertions name")
	fs.BoolVar(&cfg.InsecureAllowUnauthenticated, "insecure-allow-unauthenticated", false,
		"serve every request without checking who sends it (development only; loopback addresses only)")
	adm := admissionFlags{}
	fs.StringVar(&adm.url, "admission-url", "",
		"base URL of the admission service (reviews go to "+admission.MutatingPath+" and "+admission.ValidatingPath+"); empty runs no admission")
	fs.StringVar(&adm.keyFile, "admission-identity-key-file", "",
		"PEM private key the registry signs its admission reviews with; if the file does not exist, a new Ed25519 pair is "+
			"written to it and to <file>.pub (the public key to give the admission service). Required with --admission-url")
	fs.StringVar(&adm.caFile, "admission-ca-file", "", "CA certificates an https admission service's certificate chains to; empty means the system's")
	fs.DurationVar(&adm.timeout, "admission-timeout", admission.DefaultWebhookTimeout, "bound on one admission review")
	kubeconfig := fs.String("kubeconfig", "",
		"kubeconfig reaching the API through the aggregator with the registry's own credentials, asked who may read "+
			"/metrics and /debug/pprof (TokenReview, SubjectAccessReview); empty lets nobody read them")
	serve.Main("registry", fs, &common, func(ctx context.Context) (serve.Service, error) {
		cfg.Endpoint = common.Endpoint
		if err := load(&cfg, *identityKeys, *kubeconfig, adm); err != nil {
			return nil, err
		}
		var err error
		if cfg.EtcdTLS, err = etcdFiles.config(); err != nil {
			return nil, err
		}
		return registry.Start(ctx, cfg)
	})
}

// admissionFlags say how to reach the admission service.
type admissionFlags struct {
	url, keyFile, caFile string
	timeout              time.Duration
}

// load reads the files the flags name into cfg.
func load(cfg *registry.Config, identityKeys, kubeconfig string, adm admissionFlags) error {
	cfg.Metrics = metrics.NewRegistry()
	if kubeconfig != "" {
		rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			return err
		}
		cfg.RESTConfig = rc
	}
	if identityKeys != "" {
		keys, err := identity.LoadPublicKeys(identityKeys)
		if err != nil {
			return err
		}
		cfg.IdentityKeys = keys
	}
	if adm.url != "" {
		remote, err := remoteAdmission(adm, metrics.NewStages(cfg.Metrics))
		if err != nil {
			return err
		}
		cfg.Admission = remote
	}
	return nil
}

// remoteAdmission reaches the admission service at url, signing with the
// key in keyFile, made (with keyFile+".pub") on first use, each review
// bounded by timeout.
func remoteAdmission(adm admissionFlags, stages *metrics.Stages) (registry.Admission, error) {
	keyFile := adm.keyFile
	if keyFile == "" {
		return registry.Admission{}, errors.New("--admission-url needs --admission-identity-key-file")
	}
	if _, err := os.Stat(keyFile); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(keyFile), 0o700); err != nil {
			return registry.Admission{}, err
		}
		if err := identity.GenerateKeyFiles(keyFile, keyFile+".pub"); err != nil {
			return registry.Admission{}, err
		}
		slog.Info("generated the registry's admission identity key", "key", keyFile, "public", keyFile+".pub")
	}
	key, err := identity.LoadPrivateKey(keyFile)
	if err != nil {
		return registry.Admission{}, err
	}
	return registry.RemoteAdmission(registry.RemoteAdmissionConfig{URL: adm.url, Key: key, CAFile: adm.caFile, Timeout: adm.timeout, Stages: stages})
}
