package admission

import (
	"context"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// DefaultWebhookTimeout bounds one review when WebhookConfig.Timeout is
// zero; it is kube's default timeoutSeconds for admission webhooks.
const DefaultWebhookTimeout = webhook.DefaultTimeout

// WebhookConfig configures a WebhookClient: the webhook's full URL (path
// included), the HTTP client carrying the calls, and the bound on each.
type WebhookConfig = webhook.Config

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
	client *webhook.Client
}

var _ Admitter = (*WebhookClient)(nil)

// NewWebhookClient validates cfg and returns a client.
func NewWebhookClient(cfg WebhookConfig) (*WebhookClient, error) {
	c, err := webhook.NewClient(cfg, MaxReviewBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return &WebhookClient{client: c}, nil
}

// Admit implements Admitter by POSTing an AdmissionReview under a fresh
// uid and checking the answer is for it.
func (c *WebhookClient) Admit(ctx context.Context, a *Attributes) (*Result, error) {
	attrs, err := jsonAttributes(a)
	if err != nil {
		return nil, err
	}
	uid := uuid.NewUUID()
	var review admissionv1.AdmissionReview
	if _, err := c.client.Post(ctx, newReview(uid, attrs), &review); err != nil {
		return nil, webhook.Relabel(err, ErrUnavailable, ErrMalformedReview)
	}
	return resultOf(uid, &review)
}
