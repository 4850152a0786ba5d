package authn

import (
	"context"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesplit/kubesplit/pkg/webhook"
)

// DefaultWebhookTimeout bounds one TokenReview call when
// WebhookConfig.Timeout is zero; it is kube-apiserver's default too.
const DefaultWebhookTimeout = webhook.DefaultTimeout

// WebhookConfig configures NewWebhookClient.
type WebhookConfig struct {
	// Config is the webhook: URL is where TokenReviews are POSTed, path
	// included, as in the server field of kube's webhook kubeconfig (for
	// a kubesplit authn service,
	// https://<host>/apis/authentication.k8s.io/v1/tokenreviews); its
	// HTTPClient carries the TLS configuration and the client's own
	// credentials. A review that times out is an error, never a pass.
	webhook.Config
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
	client  *webhook.Client
	implied []string
}

var _ Authenticator = (*WebhookClient)(nil)

// NewWebhookClient checks cfg and returns a client for it.
func NewWebhookClient(cfg WebhookConfig) (*WebhookClient, error) {
	c, err := webhook.NewClient(cfg.Config, MaxTokenReviewBytes)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return &WebhookClient{client: c, implied: cfg.ImplicitAudiences}, nil
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
	var review authenticationv1.TokenReview
	_, err := c.client.Post(ctx, &authenticationv1.TokenReview{
		TypeMeta: metav1.TypeMeta{Kind: "TokenReview", APIVersion: authenticationv1.SchemeGroupVersion.String()},
		Spec:     spec,
	}, &review)
	if err != nil {
		return nil, webhook.Relabel(err, ErrWebhookUnavailable, ErrMalformedReview)
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
