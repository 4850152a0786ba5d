package webhooks

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// caller asks one webhook; pkg/admission's WebhookClient is one.
type caller interface {
	Admit(ctx context.Context, a *admission.Attributes) (*admission.Result, error)
}

// clients keeps one HTTP client per CA bundle, so that webhooks trusting
// the same CA share connections, and a configuration's new version does
// not open new ones.
type clients struct {
	mu   sync.Mutex
	byCA map[string]*http.Client
}

func newClients() *clients { return &clients{byCA: map[string]*http.Client{}} }

// forWebhook is the client calling the webhook cc points to, bounded by
// timeout, or why there can be none.
func (c *clients) forWebhook(cc admissionregistrationv1.WebhookClientConfig, versions []string, timeout time.Duration) (caller, error) {
	// kubesplit speaks AdmissionReview v1 only; kube would fall back to
	// v1beta1 for a webhook accepting only that.
	if len(versions) > 0 && !slices.Contains(versions, "v1") {
		return nil, fmt.Errorf("webhook does not accept v1 AdmissionReview (admissionReviewVersions %v)", versions)
	}
	u, err := webhookURL(cc)
	if err != nil {
		return nil, err
	}
	hc, err := c.forCA(cc.CABundle)
	if err != nil {
		return nil, err
	}
	return admission.NewWebhookClient(admission.WebhookConfig{URL: u, HTTPClient: hc, Timeout: timeout})
}

// webhookURL is clientConfig's url, or its service's address as kube's
// default service resolver makes it: https://<name>.<namespace>.svc:<port><path>,
// port 443 unless set.
func webhookURL(cc admissionregistrationv1.WebhookClientConfig) (string, error) {
	switch {
	case cc.URL != nil && cc.Service != nil:
		return "", errors.New("clientConfig sets both url and service")
	case cc.URL != nil:
		u, err := url.Parse(*cc.URL)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return "", fmt.Errorf("clientConfig.url %q is not an absolute https URL", *cc.URL)
		}
		return u.String(), nil
	case cc.Service != nil:
		s := cc.Service
		port := int32(443)
		if s.Port != nil {
			port = *s.Port
		}
		path := ""
		if s.Path != nil {
			path = *s.Path
		}
		host := net.JoinHostPort(s.Name+"."+s.Namespace+".svc", strconv.Itoa(int(port)))
		return "https://" + host + path, nil
	}
	return "", errors.New("clientConfig sets neither url nor service")
}

// forCA is the shared client trusting the PEM certificates of caBundle,
// or the system's roots when it is empty.
func (c *clients) forCA(caBundle []byte) (*http.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if hc, ok := c.byCA[string(caBundle)]; ok {
		return hc, nil
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if len(caBundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caBundle) {
			return nil, errors.New("clientConfig.caBundle holds no PEM certificate")
		}
		tlsConfig.RootCAs = pool
	}
	// No proxy from the environment: webhooks are reached directly, as
	// kube-apiserver reaches them.
	hc := &http.Client{Transport: &http.Transport{
		TLSClientConfig:     tlsConfig,
		ForceAttemptHTTP2:   true,
		MaxIdleConnsPerHost: 16,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}}
	c.byCA[string(caBundle)] = hc
	return hc, nil
}
