package identity

import (
	"net/http"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// Transport returns a RoundTripper that makes every request through next
// as u, with an assertion for audience. Internal callers use it: the
// registry's own controllers, and services that watch the API with their own
// credentials, prove who they are the same way the aggregator's forwarded
// requests do.
func (s *Signer) Transport(next http.RoundTripper, u authenticationv1.UserInfo, audience string) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &signingTransport{signer: s, next: next, user: u, audience: audience}
}

type signingTransport struct {
	signer   *Signer
	next     http.RoundTripper
	user     authenticationv1.UserInfo
	audience string
}

// RoundTrip signs a copy of r: a RoundTripper must not modify its request.
func (t *signingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	out := r.Clone(r.Context())
	if err := t.signer.SetHeader(out, t.user, t.audience); err != nil {
		if r.Body != nil {
			_ = r.Body.Close() // a RoundTripper closes the body, even on errors
		}
		return nil, err
	}
	return t.next.RoundTrip(out)
}
