package fused

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	pkgauthn "github.com/kubesplit/kubesplit/pkg/authn"
	pkgauthz "github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/controllers"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/services/admission/admission"
	"github.com/kubesplit/kubesplit/services/aggregator/aggregator"
	"github.com/kubesplit/kubesplit/services/authn/authn"
	"github.com/kubesplit/kubesplit/services/authz/authz"
	"github.com/kubesplit/kubesplit/services/registry/registry"
)

// Server is the running composition.
type Server struct {
	aggregator *aggregator.Server
	// closers stop the parts in the reverse order of their start.
	closers []func()
}

// stages are the in-process stages, set once the services that provide
// them have started.
type stages struct {
	authn              lateAuthenticator
	authz              lateAuthorizer
	mutating, validate lateAdmitter
	admissionRules     lateRules
}

// Start runs the five services in this process. ctx bounds the start only.
// It returns once the aggregator serves; authn, authz and admission sync
// their state through it in the background, and until they have, requests
// that need them are refused (503), never let through.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Server{}
	if err := s.start(ctx, cfg); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Server) start(ctx context.Context, cfg Config) error {
	// One --controllers list names the registry's controllers and
	// admission's alike; each reads its own part.
	shares, err := controllers.Share(cfg.Registry.Controllers, registry.KnownControllers(), admission.KnownControllers())
	if err != nil {
		return err
	}
	keyFile, keys, err := identityKeys(cfg.CertDir)
	if err != nil {
		return err
	}
	loopbackToken, loopback, err := newLoopback()
	if err != nil {
		return err
	}
	var st stages
	rc := cfg.Registry
	rc.Controllers = shares[0]
	rc.Endpoint = serve.Endpoint{BindAddress: "127.0.0.1:0"}
	rc.EtcdServers, rc.DataDir, rc.IdentityKeys = cfg.EtcdServers, cfg.DataDir, keys
	rc.Admission = registry.Admission{Mutating: &st.mutating, Validating: &st.validate, Rules: st.admissionRules.Rules}
	reg, err := registry.Start(ctx, rc)
	if err != nil {
		return fmt.Errorf("registry: %w", err)
	}
	s.closers = append(s.closers, reg.Close)
	authnLn, authzLn, err := listenPair()
	if err != nil {
		return err
	}
	agg, err := aggregator.Start(ctx, aggregator.Config{
		Endpoint: cfg.Endpoint, CertDir: cfg.CertDir, IdentityKeyFile: keyFile,
		Upstreams: aggregator.UpstreamURLs{
			Registry: []string{reg.URL()}, Authn: []string{urlOf(authnLn)}, Authz: []string{urlOf(authzLn)},
			AuthStartsLater: true,
		},
		TokenAuthFile: cfg.TokenAuthFile, AnonymousAuth: cfg.AnonymousAuth,
		AuthorizationMode: []string{pkgauthz.ModeWebhook},
		Authenticator:     pkgauthn.Union(loopback, &st.authn), Authorizer: &st.authz, Log: cfg.Log,
		AdvertiseAddress: cfg.Aggregator.AdvertiseAddress, EndpointReconcilerType: cfg.Aggregator.EndpointReconcilerType,
		EndpointLeaseDuration: cfg.Aggregator.EndpointLeaseDuration,
		MaxRequestsInflight:   cfg.Aggregator.MaxRequestsInflight, MaxMutatingRequestsInflight: cfg.Aggregator.MaxMutatingRequestsInflight,
		EnablePriorityAndFairness: cfg.Aggregator.EnablePriorityAndFairness,
	})
	if err != nil {
		authnLn.Close()
		authzLn.Close()
		return fmt.Errorf("aggregator: %w", err)
	}
	s.aggregator = agg
	s.closers = append(s.closers, agg.Close)
	loop := &rest.Config{
		Host: agg.URL(), BearerToken: loopbackToken, QPS: -1, UserAgent: "kubesplit-fused",
		TLSClientConfig: rest.TLSClientConfig{CAFile: filepath.Join(cfg.CertDir, "ca.crt")},
	}
	return s.startStages(ctx, cfg, &st, loop, keys, shares[1], authnLn, authzLn)
}

// startStages starts authn, authz and admission, reaching the API through
// the aggregator with rc, and hands their in-process stages over.
func (s *Server) startStages(ctx context.Context, cfg Config, st *stages, rc *rest.Config, keys []crypto.PublicKey, admissionControllers []string, authnLn, authzLn net.Listener) error {
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return err
	}
	if err := s.startAuthn(ctx, cfg, st, client, keys, authnLn); err != nil {
		return fmt.Errorf("authn: %w", err)
	}
	if err := s.startAuthz(ctx, cfg, st, rc, keys, authzLn); err != nil {
		return fmt.Errorf("authz: %w", err)
	}
	adm, err := admission.NewLocal(ctx, admission.LocalConfig{
		Client: client, RESTConfig: rc, EnablePlugins: cfg.EnableAdmissionPlugins, DisablePlugins: cfg.DisableAdmissionPlugins,
		DefaultTolerations: cfg.DefaultTolerations, Controllers: admissionControllers, Log: cfg.Log,
	})
	if err != nil {
		return fmt.Errorf("admission: %w", err)
	}
	s.closers = append(s.closers, adm.Close)
	st.mutating.set(adm.Mutating())
	st.validate.set(adm.Validating())
	st.admissionRules.set(adm.Rules)
	return nil
}

func (s *Server) startAuthn(ctx context.Context, cfg Config, st *stages, client kubernetes.Interface, keys []crypto.PublicKey, ln net.Listener) error {
	saKey, err := authn.LoadOrGenerateSigningKey(filepath.Join(cfg.CertDir, "sa.key"))
	if err != nil {
		return err
	}
	an, err := authn.Start(ctx, authn.Config{
		Endpoint: serve.Endpoint{Listener: ln}, IdentityKeys: keys, ServiceAccountKey: saKey, Client: client, Log: cfg.Log,
	})
	if err != nil {
		return err
	}
	s.closers = append(s.closers, an.Close)
	st.authn.set(an.Authenticator())
	return nil
}

func (s *Server) startAuthz(ctx context.Context, cfg Config, st *stages, rc *rest.Config, keys []crypto.PublicKey, ln net.Listener) error {
	modes := cfg.AuthorizationModes
	if len(modes) == 0 && cfg.AuthorizationConfigFile == "" {
		modes = []string{pkgauthz.ModeRBAC}
	}
	az, err := authz.Start(ctx, authz.Config{
		Endpoint: serve.Endpoint{Listener: ln}, AuthorizationModes: modes, IdentityKeys: keys, RESTConfig: rc, Log: cfg.Log,
		AuthorizationConfigFile: cfg.AuthorizationConfigFile, PolicyFile: cfg.AuthorizationPolicyFile,
		CasbinModel: cfg.CasbinModel, CasbinPolicy: cfg.CasbinPolicy,
	})
	if err != nil {
		return err
	}
	s.closers = append(s.closers, az.Close)
	st.authz.set(az.Authorizer())
	return nil
}

// URL is the aggregator's: https://host:port.
func (s *Server) URL() string { return s.aggregator.URL() }

// Close stops every part, the last started first.
func (s *Server) Close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// identityKeys are the aggregator's identity key pair under dir, made on
// the first start: the registry, authn and authz verify what the
// aggregator signs, as when split.
func identityKeys(dir string) (string, []crypto.PublicKey, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, err
	}
	priv, pub := filepath.Join(dir, "identity.key"), filepath.Join(dir, "identity.pub")
	if _, err := os.Stat(priv); errors.Is(err, os.ErrNotExist) {
		if err := identity.GenerateKeyFiles(priv, pub); err != nil {
			return "", nil, err
		}
	}
	keys, err := identity.LoadPublicKeys(pub)
	return priv, keys, err
}

// newLoopback makes the credential the services in this process call the
// API with: a random token, known only here, of a system:masters user,
// whom the aggregator allows without asking authz, so they can sync before
// authz is ready.
func newLoopback() (string, pkgauthn.Authenticator, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", nil, err
	}
	token := hex.EncodeToString(b)
	user := authenticationv1.UserInfo{Username: "system:kubesplit:loopback", Groups: []string{"system:masters", "system:authenticated"}}
	return token, pkgauthn.AuthenticatorFunc(func(_ context.Context, t string) (*pkgauthn.Response, bool, error) {
		if subtle.ConstantTimeCompare([]byte(t), []byte(token)) != 1 {
			return nil, false, nil
		}
		return &pkgauthn.Response{User: user}, true, nil
	}), nil
}

// listenPair opens the loopback listeners authn and authz will serve on:
// the aggregator must know their addresses before they can start.
func listenPair() (net.Listener, net.Listener, error) {
	a, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	b, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	return a, b, nil
}

func urlOf(ln net.Listener) string { return "http://" + ln.Addr().String() }
