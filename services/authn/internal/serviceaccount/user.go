package serviceaccount

import (
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// The names kube gives service accounts, which RBAC bindings refer to.
const (
	// UsernamePrefix starts the user name of every service account.
	UsernamePrefix = "system:serviceaccount:"
	// AllServiceAccountsGroup is the group of every service account.
	AllServiceAccountsGroup = "system:serviceaccounts"
	// CredentialIDExtra is the extra key naming the credential a request
	// used; for a token it is "JTI=<jti>", so audit logs can tell two tokens
	// of one account apart and a leaked one can be traced.
	CredentialIDExtra = "authentication.kubernetes.io/credential-id"
)

// ServiceAccountRef names the account a token is issued for. The uid is
// part of the token, so that a deleted account recreated under the same
// name does not inherit the old account's tokens.
type ServiceAccountRef struct {
	// Namespace is the account's namespace.
	Namespace string
	// Name is the account's name.
	Name string
	// UID is the account's metadata.uid.
	UID string
}

// validate refuses a reference a token could not later be checked against.
func (sa ServiceAccountRef) validate() error {
	if sa.Namespace == "" || sa.Name == "" || sa.UID == "" {
		return fmt.Errorf("%w: namespace %q, name %q, uid %q", ErrInvalidServiceAccount, sa.Namespace, sa.Name, sa.UID)
	}
	return nil
}

// Username is the user name of a service account:
// system:serviceaccount:<namespace>:<name>.
func Username(namespace, name string) string {
	return UsernamePrefix + namespace + ":" + name
}

// NamespaceGroup is the group of every service account in namespace:
// system:serviceaccounts:<namespace>.
func NamespaceGroup(namespace string) string {
	return AllServiceAccountsGroup + ":" + namespace
}

// userInfo is the user a token of sa authenticates as, with the token's id
// as its credential id when it has one.
func userInfo(sa ServiceAccountRef, jti string) authenticationv1.UserInfo {
	u := authenticationv1.UserInfo{
		Username: Username(sa.Namespace, sa.Name),
		UID:      sa.UID,
		Groups:   []string{AllServiceAccountsGroup, NamespaceGroup(sa.Namespace)},
	}
	if jti != "" {
		u.Extra = map[string]authenticationv1.ExtraValue{CredentialIDExtra: {"JTI=" + jti}}
	}
	return u
}
