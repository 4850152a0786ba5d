package oidc

import (
	"context"
	"crypto"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// maxDocumentBytes bounds a discovery document or key set; real ones are a
// few kilobytes.
const maxDocumentBytes = 1 << 20

// remoteKeySet is the provider's current keys, fetched through its discovery
// document and refetched when a token names an unknown key.
type remoteKeySet struct {
	issuer      string
	client      *http.Client
	timeout     time.Duration
	minInterval time.Duration
	now         func() time.Time

	// mu is held across a fetch, so that concurrent tokens with a new key
	// cause one fetch, not one each.
	mu        sync.Mutex
	keys      map[string]providerKey
	fetched   bool
	lastFetch time.Time
}

// providerKey is one of the provider's keys and the algorithm it signs with.
type providerKey struct {
	pub crypto.PublicKey
	alg string
}

// keysFor returns the keys that may have signed a token with key id kid
// (all keys when kid is empty) and algorithm alg, fetching the key set first
// if it was never fetched, or if no key matches and the last fetch is older
// than the refresh interval. It fails with ErrProviderUnavailable only when
// a fetch it needed failed.
func (s *remoteKeySet) keysFor(ctx context.Context, kid, alg string) ([]crypto.PublicKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if found := s.match(kid, alg); len(found) > 0 {
		return found, nil
	}
	if s.fetched && s.now().Sub(s.lastFetch) < s.minInterval {
		return nil, nil
	}
	if err := s.refresh(ctx); err != nil {
		return nil, err
	}
	return s.match(kid, alg), nil
}

// match is keysFor without fetching.
func (s *remoteKeySet) match(kid, alg string) []crypto.PublicKey {
	var out []crypto.PublicKey
	for id, k := range s.keys {
		if k.alg == alg && (kid == "" || id == kid) {
			out = append(out, k.pub)
		}
	}
	return out
}

// refresh fetches the discovery document, then the key set it points to.
// A failed fetch keeps the keys there were, and still counts against the
// refresh interval, so that a provider outage is not hammered.
func (s *remoteKeySet) refresh(ctx context.Context) error {
	s.fetched, s.lastFetch = true, s.now()
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var doc OpenIDConfiguration
	if err := s.get(ctx, strings.TrimSuffix(s.issuer, "/")+DiscoveryPath, &doc); err != nil {
		return err
	}
	// OpenID Connect Discovery, section 4.3: the document must be the
	// issuer's own, or anyone serving it could vouch for another issuer.
	if doc.Issuer != s.issuer {
		return fmt.Errorf("%w: discovery document names issuer %q, want %q", ErrProviderUnavailable, doc.Issuer, s.issuer)
	}
	if err := CheckHTTPSURL(doc.JWKSURI); err != nil {
		return fmt.Errorf("%w: jwks_uri: %w", ErrProviderUnavailable, err)
	}
	var set JSONWebKeySet
	if err := s.get(ctx, doc.JWKSURI, &set); err != nil {
		return err
	}
	s.keys = usableKeys(set)
	return nil
}

// usableKeys decodes the signing keys of set, skipping those that are for
// encryption, of a kind not supported, or malformed: a provider may publish
// keys for other uses, and one bad key must not hide the good ones.
func usableKeys(set JSONWebKeySet) map[string]providerKey {
	keys := map[string]providerKey{}
	for _, jwk := range set.Keys {
		if jwk.Use != "" && jwk.Use != "sig" {
			continue
		}
		pub, err := jwk.PublicKey()
		if err != nil {
			continue
		}
		alg, err := SigningAlgorithm(pub)
		if err != nil || (jwk.Algorithm != "" && jwk.Algorithm != alg) {
			continue
		}
		keys[jwk.KeyID] = providerKey{pub: pub, alg: alg}
	}
	return keys
}

// get fetches url and decodes its JSON body into v.
func (s *remoteKeySet) get(ctx context.Context, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrProviderUnavailable, err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrProviderUnavailable, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: GET %s: %s", ErrProviderUnavailable, url, res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxDocumentBytes+1))
	switch {
	case err != nil:
		return fmt.Errorf("%w: GET %s: %w", ErrProviderUnavailable, url, err)
	case len(body) > maxDocumentBytes:
		return fmt.Errorf("%w: GET %s: body over %d bytes", ErrProviderUnavailable, url, maxDocumentBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: GET %s: %w", ErrProviderUnavailable, url, err)
	}
	return nil
}
