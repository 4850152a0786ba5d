package authz

import (
	"context"
	"fmt"
	"strconv"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// DefaultWebhookTimeout bounds one review when WebhookConfig.Timeout is
// zero.
const DefaultWebhookTimeout = webhook.DefaultTimeout

// maxAnswerBytes bounds how much of an answer the client reads.
const maxAnswerBytes = 1 << 20

// WebhookConfig configures a WebhookClient: the webhook's full URL (path
// included), the HTTP client carrying the calls, and the bound on each.
type WebhookConfig = webhook.Config

// WebhookClient is an Authorizer that asks a remote SubjectAccessReview
// webhook, such as NewSubjectAccessReviewHandler or any webhook
// kube-apiserver could use. Every failure (connection, timeout, non-2xx
// status, an answer that is not a SubjectAccessReview) is an error with
// DecisionNoOpinion, never an allow.
type WebhookClient struct {
	client *webhook.Client
}

var _ Authorizer = (*WebhookClient)(nil)

// NewWebhookClient validates cfg and returns a client.
func NewWebhookClient(cfg WebhookConfig) (*WebhookClient, error) {
	c, err := webhook.NewClient(cfg, maxAnswerBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return &WebhookClient{client: c}, nil
}

// Authorize implements Authorizer by POSTing a SubjectAccessReview.
func (c *WebhookClient) Authorize(ctx context.Context, a Attributes) (Result, error) {
	noAnswer := Result{Decision: DecisionNoOpinion}
	var review authorizationv1.SubjectAccessReview
	header, err := c.client.Post(ctx, newReview(a), &review)
	if err != nil {
		return noAnswer, webhook.Relabel(err, ErrUnavailable, ErrMalformedReview)
	}
	revision, err := parseRevision(header.Get(RevisionHeader))
	if err != nil {
		return noAnswer, err
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
