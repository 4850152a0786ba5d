package registry

import (
	"crypto"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/identity"
	"github.com/kubesplit/kubesplit/pkg/metrics"
	"github.com/kubesplit/kubesplit/pkg/serve"
	"github.com/kubesplit/kubesplit/pkg/tracing"
	"github.com/kubesplit/kubesplit/services/registry/internal/handler"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// Admission is the admission stage every write passes: the mutating and
// validating admitters, and the rules that say which writes each wants.
type Admission = handler.Admission

// RemoteAdmissionConfig says how to reach the admission service.
type RemoteAdmissionConfig struct {
	// URL is the admission service's base URL; reviews go to
	// admission.MutatingPath and admission.ValidatingPath under it.
	// Required.
	URL string
	// Key is the registry's own private key: every review carries an
	// assertion it signs as admission.RegistryUser, issuer
	// admission.RegistryIssuer, audience admission.Audience, which the
	// admission service checks with the public half. Required.
	Key crypto.Signer
	// Transport carries the calls; nil is serve.ClientTransport, trusting
	// CAFile's certificates (the system's when empty) for an https URL.
	Transport http.RoundTripper
	CAFile    string
	// Timeout bounds each review; zero is admission.DefaultWebhookTimeout.
	Timeout time.Duration
	// Stages, when set, times every call to the admission service.
	Stages *metrics.Stages
}

// RemoteAdmission is the admission service as the registry's admission
// stage: webhook clients for its mutating and validating paths, signing
// every review with cfg.Key, and its published rules (admission.RulesPath),
// so that each phase is asked only about the writes they match, as
// kube-apiserver calls a webhook only about what its rules match: most
// writes concern no plugin, and a round trip each would cost throughput.
func RemoteAdmission(cfg RemoteAdmissionConfig) (Admission, error) {
	if cfg.URL == "" || cfg.Key == nil {
		return Admission{}, errors.New("remote admission needs a URL and the registry's signing key")
	}
	signer, err := identity.NewSigner(identity.SignerConfig{Key: cfg.Key, Issuer: admission.RegistryIssuer})
	if err != nil {
		return Admission{}, err
	}
	transport := cfg.Transport
	if transport == nil {
		t, err := serve.ClientTransport(cfg.CAFile)
		if err != nil {
			return Admission{}, fmt.Errorf("admission %w", err)
		}
		transport = t
	}
	signed := signer.Transport(transport, authenticationv1.UserInfo{Username: admission.RegistryUser}, admission.Audience)
	client := &http.Client{Transport: tracing.Transport(cfg.Stages.Transport("admission", signed))}
	base := strings.TrimSuffix(cfg.URL, "/")
	mutating, err := admission.NewWebhookClient(admission.WebhookConfig{URL: base + admission.MutatingPath, HTTPClient: client, Timeout: cfg.Timeout})
	if err != nil {
		return Admission{}, err
	}
	validating, err := admission.NewWebhookClient(admission.WebhookConfig{URL: base + admission.ValidatingPath, HTTPClient: client, Timeout: cfg.Timeout})
	if err != nil {
		return Admission{}, err
	}
	rules, err := admission.NewRuleSource(admission.RuleSourceConfig{URL: base + admission.RulesPath, HTTPClient: client, Timeout: cfg.Timeout})
	if err != nil {
		return Admission{}, err
	}
	return Admission{Mutating: mutating, Validating: validating, Rules: rules.Rules}, nil
}
