package identity

import (
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// User is who a request acts as, after authentication and impersonation. It
// mirrors kube's user.Info.
type User struct {
	// Name is the user name, for example "alice" or
	// "system:serviceaccount:default:builder". Never empty in an assertion.
	Name string
	// UID identifies the user across renames; may be empty.
	UID string
	// Groups the user belongs to, for example "system:authenticated".
	Groups []string
	// Extra holds further attributes an authenticator supplied (scopes,
	// the credential id of a service-account token, …).
	Extra map[string][]string
}

// ToUserInfo returns u as the type the stage protocols (TokenReview,
// SubjectAccessReview, AdmissionReview) carry. It shares no slices with u.
func (u User) ToUserInfo() authenticationv1.UserInfo {
	info := authenticationv1.UserInfo{
		Username: u.Name,
		UID:      u.UID,
		Groups:   slices.Clone(u.Groups),
	}
	if len(u.Extra) > 0 {
		info.Extra = make(map[string]authenticationv1.ExtraValue, len(u.Extra))
		for k, v := range u.Extra {
			info.Extra[k] = slices.Clone(v)
		}
	}
	return info
}

// FromUserInfo is the inverse of ToUserInfo.
func FromUserInfo(info authenticationv1.UserInfo) User {
	u := User{
		Name:   info.Username,
		UID:    info.UID,
		Groups: slices.Clone(info.Groups),
	}
	if len(info.Extra) > 0 {
		u.Extra = make(map[string][]string, len(info.Extra))
		for k, v := range info.Extra {
			u.Extra[k] = slices.Clone([]string(v))
		}
	}
	return u
}
