package oidc

import (
	"fmt"
	"net/url"
)

// CheckIssuerURL reports whether s may be an issuer URL: an absolute https
// URL without query or fragment, as OpenID Connect requires.
func CheckIssuerURL(s string) error {
	u, err := checkHTTPS(s)
	if err != nil {
		return err
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q has a query or fragment", s)
	}
	return nil
}

// CheckHTTPSURL reports whether s is an absolute https URL, as a key set's
// must be: keys fetched in the clear could be swapped by anyone on the path.
func CheckHTTPSURL(s string) error {
	_, err := checkHTTPS(s)
	return err
}

// checkHTTPS parses s and refuses anything but an absolute https URL.
func checkHTTPS(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("%q is not an https URL", s)
	}
	return u, nil
}
