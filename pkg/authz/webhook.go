package authz

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
)

// DefaultWebhookTimeout bounds one review when WebhookConfig.Timeout is
// zero.
const DefaultWebhookTimeout = 10 * time.Second

// maxAnswerBytes bounds how much of an answer the client reads.
const maxAnswerBytes = 1 << 20

// WebhookConfig configures a WebhookClient.
type WebhookConfig struct {
	// URL is the full address reviews are POSTed to, for example
	// https://authz:8443/apis/authorization.k8s.io/v1/subjectaccessreviews.
	// Required; http or https.
	URL string

	// HTTPClient carries the calls, with whatever TLS and credentials the
	// hop needs. Nil means a client of its own that does not follow
	// redirects (a redirected POST would come back as a GET).
	HTTPClient *http.Client

	// Timeout bounds each review, whatever the caller's context allows.
	// Zero means DefaultWebhookTimeout.
	Timeout time.Duration
}

// WebhookClient is an Authorizer that asks a remote SubjectAccessReview
// webhook, such as NewSubjectAccessReviewHandler or any webhook
// kube-apiserver could use. Every failure (connection, timeout, non-2xx
// status, an answer that is not a SubjectAccessReview) is an error with
// DecisionNoOpinion, never an allow.
type WebhookClient struct {
	url     string
	client  *http.Client
	timeout time.Duration
}

var _ Authorizer = (*WebhookClient)(nil)

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

// Authorize implements Authorizer by POSTing a SubjectAccessReview.
func (c *WebhookClient) Authorize(ctx context.Context, a Attributes) (Result, error) {
	noAnswer := Result{Decision: DecisionNoOpinion}
	body, err := json.Marshal(newReview(a))
	if err != nil {
		return noAnswer, fmt.Errorf("authz: encoding SubjectAccessReview: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return noAnswer, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		return noAnswer, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	return readAnswer(resp)
}

// readAnswer turns the webhook's HTTP answer into a Result.
func readAnswer(resp *http.Response) (Result, error) {
	noAnswer := Result{Decision: DecisionNoOpinion}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes+1))
	if err != nil {
		return noAnswer, fmt.Errorf("%w: reading answer: %v", ErrUnavailable, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return noAnswer, fmt.Errorf("%w: webhook answered %s", ErrUnavailable, resp.Status)
	}
	if len(data) > maxAnswerBytes {
		return noAnswer, fmt.Errorf("%w: answer larger than %d bytes", ErrMalformedReview, maxAnswerBytes)
	}
	revision, err := parseRevision(resp.Header.Get(RevisionHeader))
	if err != nil {
		return noAnswer, err
	}
	var review authorizationv1.SubjectAccessReview
	if err := json.Unmarshal(data, &review); err != nil {
		return noAnswer, fmt.Errorf("%w: %v", ErrMalformedReview, err)
	}
	if review.TypeMeta != reviewTypeMeta {
		return noAnswer, fmt.Errorf("%w: got %q %q", ErrMalformedReview, review.APIVersion, review.Kind)
	}
	res, err := resultOf(review.Status)
	res.Revision = revision
	return res, err
}

// parseRevision reads RevisionHeader; absent means unversioned (0).
func parseRevision(v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	rev, err := strconv.ParseInt(v, 10, 64)
	if err != nil || rev < 0 {
		return 0, fmt.Errorf("%w: bad %s %q", ErrMalformedReview, RevisionHeader, v)
	}
	return rev, nil
}
