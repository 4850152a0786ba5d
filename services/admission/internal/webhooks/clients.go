package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/pkg/webhook"
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

// webhookURL is clientConfig's url, or its service's address.
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
		return webhook.ServiceURL(cc.Service.Namespace, cc.Service.Name, cc.Service.Port, cc.Service.Path), nil
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
	hc, err := webhook.NewCAClient(caBundle)
	if err != nil {
		return nil, fmt.Errorf("clientConfig.%w", err)
	}
	c.byCA[string(caBundle)] = hc
	return hc, nil
}
