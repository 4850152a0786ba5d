package oidc

import (
	"fmt"

	"github.com/golang-jwt/jwt/v5"
	authenticationv1 "k8s.io/api/authentication/v1"
)

// userFrom maps a verified token's claims to a user as kube's --oidc-*
// flags do. It fails when a claim the mapping needs is missing or of the
// wrong type, or a required claim does not hold.
func (a *Authenticator) userFrom(c jwt.MapClaims) (authenticationv1.UserInfo, error) {
	for name, want := range a.cfg.RequiredClaims {
		if got, ok := c[name].(string); !ok || got != want {
			return authenticationv1.UserInfo{}, fmt.Errorf("required claim %q is not %q", name, want)
		}
	}
	name, ok := c[a.cfg.UsernameClaim].(string)
	if !ok || name == "" {
		return authenticationv1.UserInfo{}, fmt.Errorf("claim %q is not a non-empty string", a.cfg.UsernameClaim)
	}
	// An email address is only an identity once the provider has checked
	// it. Kube requires email_verified to be true when it is present.
	if a.cfg.UsernameClaim == "email" {
		if v, present := c["email_verified"]; present && v != true {
			return authenticationv1.UserInfo{}, fmt.Errorf("email %q is not verified", name)
		}
	}
	groups, err := groupsFrom(c, a.cfg.GroupsClaim)
	if err != nil {
		return authenticationv1.UserInfo{}, err
	}
	u := authenticationv1.UserInfo{Username: a.usernamePrefix + name}
	for _, g := range groups {
		u.Groups = append(u.Groups, a.cfg.GroupsPrefix+g)
	}
	return u, nil
}

// groupsFrom reads the groups claim, which providers write as a string or
// an array of strings. A missing claim means no groups.
func groupsFrom(c jwt.MapClaims, claim string) ([]string, error) {
	if claim == "" {
		return nil, nil
	}
	switch v := c[claim].(type) {
	case nil:
		return nil, nil
	case string:
		return []string{v}, nil
	case []any:
		groups := make([]string, 0, len(v))
		for _, g := range v {
			s, ok := g.(string)
			if !ok {
				return nil, fmt.Errorf("claim %q holds a %T, want strings", claim, g)
			}
			groups = append(groups, s)
		}
		return groups, nil
	}
	return nil, fmt.Errorf("claim %q is a %T, want a string or strings", claim, c[claim])
}
