package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
)

// DefaultWebhookTimeout bounds one review when WebhookConfig.Timeout is
// zero; it is kube's default timeoutSeconds for admission webhooks.
const DefaultWebhookTimeout = 10 * time.Second

// WebhookConfig configures a WebhookClient.
type WebhookConfig struct {
	// URL is the full address reviews are POSTed to, path included, as in
	// a webhook configuration's clientConfig.url. Required; http or https.
	URL string

	// HTTPClient carries the calls, with whatever TLS and credentials the
	// hop needs. Nil means a client of its own that does not follow
	// redirects (a redirected POST would come back as a GET).
	HTTPClient *http.Client

	// Timeout bounds each review, whatever the caller's context allows.
	// Zero means DefaultWebhookTimeout. A review that times out is an
	// error, never an allow.
	Timeout time.Duration
}

// WebhookClient is an Admitter that asks a remote AdmissionReview webhook,
// such as NewAdmissionReviewHandler or any webhook kube-apiserver could
// call. Every failure (connection, timeout, non-2xx status, an answer that
// is not an AdmissionReview for this request) is an error with a nil Result,
// never an allow.
//
// Unmarked it is a validating admitter; wrap it in Mutating when the remote
// may patch (kubesplit's admission service does), so that Chain applies its
// patches.
type WebhookClient struct {
	url     string
	client  *http.Client
	timeout time.Duration
}

var _ Admitter = (*WebhookClient)(nil)

// NewWebhookClient validates cfg and returns a client.
func NewWebhookClient(cfg WebhookConfig) (*WebhookClient, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: webhook URL %q must be an absolute http or https URL", ErrInvalidConfig, cfg.URL)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("%w: negative webhook timeout", ErrInvalidConfig)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultWebhookTimeout
	}
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}
	}
	return &WebhookClient{url: u.String(), client: client, timeout: cfg.Timeout}, nil
}

// Admit implements Admitter by POSTing an AdmissionReview under a fresh
// uid and checking the answer is for it.
func (c *WebhookClient) Admit(ctx context.Context, a *Attributes) (*Result, error) {
	attrs, err := jsonAttributes(a)
	if err != nil {
		return nil, err
	}
	uid := uuid.NewUUID()
	body, err := json.Marshal(newReview(uid, attrs))
	if err != nil {
		return nil, fmt.Errorf("admission: encoding AdmissionReview: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	review, err := readAnswer(resp)
	if err != nil {
		return nil, err
	}
	return resultOf(uid, review)
}

// readAnswer reads the webhook's HTTP answer as an AdmissionReview.
func readAnswer(resp *http.Response) (*admissionv1.AdmissionReview, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxReviewBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading answer: %v", ErrUnavailable, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("%w: webhook answered %s%s", ErrUnavailable, resp.Status, statusMessage(data))
	}
	if len(data) > MaxReviewBytes {
		return nil, fmt.Errorf("%w: answer larger than %d bytes", ErrMalformedReview, MaxReviewBytes)
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(data, &review); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformedReview, err)
	}
	return &review, nil
}

// statusMessage extracts the message of a metav1.Status error body, if the
// body is one, for the error text.
func statusMessage(data []byte) string {
	var s metav1.Status
	if json.Unmarshal(data, &s) != nil || s.Kind != "Status" || s.Message == "" {
		return ""
	}
	return ": " + s.Message
}
