package extapi

import (
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// requestHeader authenticates front-proxy requests as kube's extension
// API servers do (--requestheader-* options, read from the ConfigMap).
type requestHeader struct {
	ca                                       *x509.CertPool
	allowedNames                             []string
	userHeaders, groupHeaders, extraPrefixes []string
}

func newRequestHeader(data map[string]string) (*requestHeader, error) {
	rh := &requestHeader{ca: x509.NewCertPool()}
	if !rh.ca.AppendCertsFromPEM([]byte(data["requestheader-client-ca-file"])) {
		return nil, fmt.Errorf("extapi: requestheader-client-ca-file holds no certificate")
	}
	for key, dst := range map[string]*[]string{
		"requestheader-allowed-names":        &rh.allowedNames,
		"requestheader-username-headers":     &rh.userHeaders,
		"requestheader-group-headers":        &rh.groupHeaders,
		"requestheader-extra-headers-prefix": &rh.extraPrefixes,
	} {
		if err := json.Unmarshal([]byte(data[key]), dst); err != nil {
			return nil, fmt.Errorf("extapi: %s: %w", key, err)
		}
	}
	if len(rh.userHeaders) == 0 {
		return nil, fmt.Errorf("extapi: no requestheader-username-headers")
	}
	return rh, nil
}

// authenticate returns who the front proxy says is asking, or why it is
// not believed.
func (rh *requestHeader) authenticate(r *http.Request) (Request, error) {
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 {
		return Request{}, fmt.Errorf("no client certificate signed by the requestheader CA")
	}
	if cn := r.TLS.VerifiedChains[0][0].Subject.CommonName; len(rh.allowedNames) > 0 && !slices.Contains(rh.allowedNames, cn) {
		return Request{}, fmt.Errorf("client certificate %q is not an allowed front proxy", cn)
	}
	req := Request{Method: r.Method, Path: r.URL.Path, Extra: map[string][]string{}}
	for _, h := range rh.userHeaders {
		if req.User = r.Header.Get(h); req.User != "" {
			break
		}
	}
	if req.User == "" {
		return Request{}, fmt.Errorf("no user in %v", rh.userHeaders)
	}
	for _, h := range rh.groupHeaders {
		req.Groups = append(req.Groups, r.Header.Values(h)...)
	}
	for name, values := range r.Header {
		for _, p := range rh.extraPrefixes {
			if rest, ok := strings.CutPrefix(strings.ToLower(name), strings.ToLower(p)); ok {
				key, err := url.PathUnescape(rest)
				if err != nil {
					key = rest
				}
				req.Extra[key] = append(req.Extra[key], values...)
			}
		}
	}
	return req, nil
}
