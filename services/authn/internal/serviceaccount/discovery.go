package serviceaccount

import (
	"crypto"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/services/authn/internal/oidc"
)

// JWKSPath is where kube-apiserver serves its issuer's key set; the
// discovery document is at oidc.DiscoveryPath.
const JWKSPath = "/openid/v1/jwks"

// discoveryCacheControl lets relying parties cache the documents for an
// hour, as kube does; a rotated-in key should be published that long before
// it signs.
const discoveryCacheControl = "public, max-age=3600"

// DiscoveryConfig configures NewDiscoveryHandler.
type DiscoveryConfig struct {
	// Issuer is the issuer, as IssuerConfig.Issuer. Required, and an https
	// URL without query or fragment, as OpenID discovery requires.
	Issuer string
	// JWKSURI is where relying parties fetch the key set, as kube's
	// --service-account-jwks-uri. Empty means Issuer + JWKSPath. An https
	// URL.
	JWKSURI string
	// Keys are the public keys tokens may be signed with, including any
	// still valid from before a rotation. Required.
	Keys []crypto.PublicKey
}

// discoveryHandler serves the two documents, encoded once.
type discoveryHandler struct {
	configuration []byte
	jwks          []byte
}

// NewDiscoveryHandler returns a handler serving GET oidc.DiscoveryPath and GET
// JWKSPath, so that relying parties (cloud workload identity, vault) can
// check our tokens on their own. It serves those paths at the root, as kube
// does; an issuer URL with a path needs the handler mounted under it.
func NewDiscoveryHandler(cfg DiscoveryConfig) (http.Handler, error) {
	if err := oidc.CheckIssuerURL(cfg.Issuer); err != nil {
		return nil, fmt.Errorf("%w: discovery issuer: %w", authn.ErrInvalidConfig, err)
	}
	if cfg.JWKSURI == "" {
		cfg.JWKSURI = strings.TrimSuffix(cfg.Issuer, "/") + JWKSPath
	}
	if err := oidc.CheckHTTPSURL(cfg.JWKSURI); err != nil {
		return nil, fmt.Errorf("%w: discovery JWKS URI: %w", authn.ErrInvalidConfig, err)
	}
	if len(cfg.Keys) == 0 {
		return nil, fmt.Errorf("%w: discovery needs a key", authn.ErrInvalidConfig)
	}
	set, err := oidc.NewJSONWebKeySet(cfg.Keys)
	if err != nil {
		return nil, err
	}
	doc := oidc.OpenIDConfiguration{
		Issuer:                           cfg.Issuer,
		JWKSURI:                          cfg.JWKSURI,
		ResponseTypesSupported:           []string{"id_token"},
		SubjectTypesSupported:            []string{"public"},
		IDTokenSigningAlgValuesSupported: algorithms(set),
	}
	h := &discoveryHandler{}
	if h.configuration, err = json.Marshal(doc); err != nil {
		return nil, fmt.Errorf("serviceaccount: encoding discovery: %w", err)
	}
	if h.jwks, err = json.Marshal(set); err != nil {
		return nil, fmt.Errorf("serviceaccount: encoding key set: %w", err)
	}
	return h, nil
}

// algorithms lists the keys' algorithms, each once, sorted.
func algorithms(set *oidc.JSONWebKeySet) []string {
	var algs []string
	for _, k := range set.Keys {
		algs = append(algs, k.Algorithm)
	}
	slices.Sort(algs)
	return slices.Compact(algs)
}

// ServeHTTP serves whichever document the path names.
func (h *discoveryHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body []byte
	var contentType string
	switch r.URL.Path {
	case oidc.DiscoveryPath:
		body, contentType = h.configuration, "application/json"
	case JWKSPath:
		body, contentType = h.jwks, "application/jwk-set+json"
	default:
		apierror.Write(w, apierrors.NewGenericServerResponse(http.StatusNotFound, "get", schema.GroupResource{}, "", "", 0, false))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		apierror.Write(w, apierrors.NewMethodNotSupported(schema.GroupResource{}, r.Method))
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Cache-Control", discoveryCacheControl)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}
