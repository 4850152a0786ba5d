package authn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultWebhookTimeout bounds one TokenReview call when
// WebhookConfig.Timeout is zero; it is kube-apiserver's default too.
const DefaultWebhookTimeout = 10 * time.Second

// WebhookConfig configures NewWebhookClient.
type WebhookConfig struct {
	// URL is where TokenReviews are POSTed, path included, as in the server
	// field of kube's webhook kubeconfig; for a kubesplit authn service,
	// https://<host>/apis/authentication.k8s.io/v1/tokenreviews. Required.
	URL string
	// HTTPClient sends the reviews; it carries the TLS configuration and the
	// client's own credentials (a client certificate or a bearer-token
	// transport). Nil means a client with Go's default transport.
	HTTPClient *http.Client
	// Timeout bounds each review; zero means DefaultWebhookTimeout. A review
	// that times out is an error, never a pass.
	Timeout time.Duration
	// ImplicitAudiences are what an authenticated answer with no
	// status.audiences stands for (the webhook's own API audiences). When
	// empty, such an answer is taken as audience-agnostic: valid for this
	// server, as the TokenReview API documents.
	ImplicitAudiences []string
}

// WebhookClient is an Authenticator that asks a remote TokenReview webhook
// (kubesplit's authn service, or any kube-compatible one). Everything other
// than a well-formed 2xx TokenReview is an error, so that callers fail
// closed: an unreachable, slow or confused webhook never authenticates.
type WebhookClient struct {
	url     string
	client  *http.Client
	timeout time.Duration
	implied []string
}

var _ Authenticator = (*WebhookClient)(nil)

// NewWebhookClient checks cfg and returns a client for it.
func NewWebhookClient(cfg WebhookConfig) (*WebhookClient, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: webhook URL %q must be an absolute http(s) URL", ErrInvalidConfig, cfg.URL)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("%w: webhook timeout must not be negative", ErrInvalidConfig)
	}
	c := &WebhookClient{url: u.String(), client: cfg.HTTPClient, timeout: cfg.Timeout, implied: cfg.ImplicitAudiences}
	if c.client == nil {
		c.client = &http.Client{}
	}
	if c.timeout == 0 {
		c.timeout = DefaultWebhookTimeout
	}
	return c, nil
}

// AuthenticateToken POSTs a TokenReview for token, with the audiences asked
// for in ctx (WithAudiences), and reads the webhook's decision.
func (c *WebhookClient) AuthenticateToken(ctx context.Context, token string) (*Response, bool, error) {
	if token == "" {
		// A review of nothing is a 400 from kube-apiserver; nothing to ask.
		return nil, false, nil
	}
	want, _ := AudiencesFrom(ctx)
	status, err := c.review(ctx, authenticationv1.TokenReviewSpec{Token: token, Audiences: want})
	if err != nil {
		return nil, false, err
	}
	return c.decide(status, want)
}

// review sends one TokenReview and returns the status of the answer.
func (c *WebhookClient) review(ctx context.Context, spec authenticationv1.TokenReviewSpec) (*authenticationv1.TokenReviewStatus, error) {
	body, err := json.Marshal(&authenticationv1.TokenReview{
		TypeMeta: metav1.TypeMeta{Kind: "TokenReview", APIVersion: authenticationv1.SchemeGroupVersion.String()},
		Spec:     spec,
	})
	if err != nil {
		return nil, fmt.Errorf("authn: encoding TokenReview: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWebhookUnavailable, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWebhookUnavailable, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxTokenReviewBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading answer: %w", ErrWebhookUnavailable, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("%w: HTTP %d%s", ErrWebhookUnavailable, resp.StatusCode, statusMessage(data))
	}
	return decodeReview(data)
}

// decodeReview parses a webhook's answer.
func decodeReview(data []byte) (*authenticationv1.TokenReviewStatus, error) {
	if len(data) > MaxTokenReviewBytes {
		return nil, fmt.Errorf("%w: answer larger than %d bytes", ErrMalformedReview, MaxTokenReviewBytes)
	}
	var review authenticationv1.TokenReview
	if err := json.Unmarshal(data, &review); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedReview, err)
	}
	if review.Kind != "TokenReview" || review.APIVersion != authenticationv1.SchemeGroupVersion.String() {
		return nil, fmt.Errorf("%w: got kind %q apiVersion %q", ErrMalformedReview, review.Kind, review.APIVersion)
	}
	return &review.Status, nil
}

// decide turns a review status into the Authenticator's answer.
func (c *WebhookClient) decide(status *authenticationv1.TokenReviewStatus, want []string) (*Response, bool, error) {
	if !status.Authenticated {
		if status.Error != "" {
			return nil, false, fmt.Errorf("%w: %s", ErrReviewFailed, status.Error)
		}
		return nil, false, nil
	}
	if status.User.Username == "" {
		return nil, false, fmt.Errorf("%w: authenticated without a user name", ErrMalformedReview)
	}
	auds := status.Audiences
	if len(want) > 0 {
		got := auds
		if len(got) == 0 {
			got = c.implied
		}
		if len(got) > 0 {
			// An audience-aware webhook must name one of the audiences asked
			// for; otherwise the token was meant for someone else.
			if auds = intersect(want, got); len(auds) == 0 {
				return nil, false, nil
			}
		}
	}
	return &Response{User: status.User, Audiences: auds}, true, nil
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
