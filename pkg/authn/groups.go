package authn

import (
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// The well-known names kube-apiserver gives to callers, which RBAC bindings
// refer to.
const (
	// AnonymousUser is who a request without credentials is.
	AnonymousUser = "system:anonymous"
	// AllUnauthenticated is the group of every anonymous request.
	AllUnauthenticated = "system:unauthenticated"
	// AllAuthenticated is the group of every authenticated user.
	AllAuthenticated = "system:authenticated"
)

// anonymousUser is the user of a request that carries no credentials.
func anonymousUser() *authenticationv1.UserInfo {
	return &authenticationv1.UserInfo{Username: AnonymousUser, Groups: []string{AllUnauthenticated}}
}

// withAuthenticatedGroup adds system:authenticated to u's groups the way
// kube's group adder does: never to the anonymous user, and not when u
// already says whether it is authenticated. The groups slice is copied so
// that an authenticator's (or cache's) stored user is never changed.
func withAuthenticatedGroup(u authenticationv1.UserInfo) authenticationv1.UserInfo {
	if u.Username == AnonymousUser ||
		slices.Contains(u.Groups, AllAuthenticated) || slices.Contains(u.Groups, AllUnauthenticated) {
		return u
	}
	groups := make([]string, 0, len(u.Groups)+1)
	u.Groups = append(append(groups, u.Groups...), AllAuthenticated)
	return u
}
