package filters

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/pkg/authn"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/request"
)

// The impersonation headers kubectl --as, --as-group and --as-uid send.
const (
	headerImpersonateUser   = "Impersonate-User"
	headerImpersonateGroup  = "Impersonate-Group"
	headerImpersonateUID    = "Impersonate-Uid"
	headerImpersonateExtra  = "Impersonate-Extra-"
	serviceAccountPrefix    = "system:serviceaccount:"
	allServiceAccountsGroup = "system:serviceaccounts"
)

// WithImpersonation returns a middleware that, when the request asks to
// act as someone else, checks that the authenticated caller may
// impersonate every part of that identity (verb "impersonate" on users or
// serviceaccounts, groups, uids, userextras, as kube does), then puts the
// impersonated user in the context for authorization and the upstreams.
// Each check goes through a, so system:masters may impersonate anyone.
func WithImpersonation(a authz.Authorizer) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			want, asked, err := requestedIdentity(r.Header)
			if err != nil {
				apierror.Write(w, apierrors.NewBadRequest(err.Error()))
				return
			}
			if !asked {
				next.ServeHTTP(w, r)
				return
			}
			caller, ok := request.UserFrom(r.Context())
			if !ok {
				apierror.Write(w, apierrors.NewInternalError(errors.New("no user found for request")))
				return
			}
			for _, attrs := range impersonationChecks(caller, want) {
				res, err := a.Authorize(r.Context(), attrs)
				switch {
				case res.Decision == authz.DecisionAllow:
					continue
				case err != nil:
					apierror.Write(w, impersonationUnavailable())
					return
				default:
					apierror.Write(w, authz.Forbidden(attrs, res.Reason))
					return
				}
			}
			for name := range r.Header {
				if strings.HasPrefix(strings.ToLower(name), "impersonate-") {
					r.Header.Del(name)
				}
			}
			next.ServeHTTP(w, r.WithContext(request.WithUser(r.Context(), impersonatedUser(want))))
		})
	}
}

// requestedIdentity reads the impersonation headers; asked is false when
// there are none. Groups, a uid or extras without a user are refused, as
// kube refuses them: they would otherwise amend the caller's own identity.
func requestedIdentity(h http.Header) (u authenticationv1.UserInfo, asked bool, err error) {
	users := h.Values(headerImpersonateUser)
	u.Groups = h.Values(headerImpersonateGroup)
	u.UID = h.Get(headerImpersonateUID)
	for name, values := range h {
		if !strings.HasPrefix(strings.ToLower(name), strings.ToLower(headerImpersonateExtra)) {
			continue
		}
		key, err := url.PathUnescape(strings.ToLower(name[len(headerImpersonateExtra):]))
		if err != nil {
			return u, true, fmt.Errorf("impersonation extra %q: %w", name, err)
		}
		if u.Extra == nil {
			u.Extra = map[string]authenticationv1.ExtraValue{}
		}
		u.Extra[key] = append(u.Extra[key], values...)
	}
	asked = len(users) > 0 || len(u.Groups) > 0 || u.UID != "" || len(u.Extra) > 0
	switch {
	case !asked:
		return u, false, nil
	case len(users) != 1 || users[0] == "":
		return u, true, errors.New("requested impersonation without exactly one Impersonate-User")
	}
	u.Username = users[0]
	return u, true, nil
}

// impersonationChecks are the authorization questions an impersonation
// of want by caller raises, one per part of the identity.
func impersonationChecks(caller authenticationv1.UserInfo, want authenticationv1.UserInfo) []authz.Attributes {
	check := func(group, resource, subresource, namespace, name string) authz.Attributes {
		return authz.Attributes{
			User: caller, Verb: "impersonate", ResourceRequest: true, APIGroup: group,
			Resource: resource, Subresource: subresource, Namespace: namespace, Name: name,
		}
	}
	var checks []authz.Attributes
	if ns, name, ok := serviceAccount(want.Username); ok {
		checks = append(checks, check("", "serviceaccounts", "", ns, name))
	} else {
		checks = append(checks, check("", "users", "", "", want.Username))
	}
	for _, g := range want.Groups {
		checks = append(checks, check("", "groups", "", "", g))
	}
	if want.UID != "" {
		checks = append(checks, check("authentication.k8s.io", "uids", "", "", want.UID))
	}
	keys := make([]string, 0, len(want.Extra))
	for k := range want.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range want.Extra[k] {
			checks = append(checks, check("authentication.k8s.io", "userextras", k, "", v))
		}
	}
	return checks
}

// impersonatedUser is want with the groups kube implies: those of a
// service account, and system:authenticated (or system:unauthenticated
// for the anonymous user).
func impersonatedUser(want authenticationv1.UserInfo) authenticationv1.UserInfo {
	u := want
	u.Groups = slices.Clone(want.Groups)
	if ns, _, ok := serviceAccount(u.Username); ok {
		u.Groups = appendMissing(u.Groups, allServiceAccountsGroup, allServiceAccountsGroup+":"+ns)
	}
	if u.Username == authn.AnonymousUser {
		u.Groups = appendMissing(u.Groups, authn.AllUnauthenticated)
	} else {
		u.Groups = appendMissing(u.Groups, authn.AllAuthenticated)
	}
	return u
}

// serviceAccount splits system:serviceaccount:<ns>:<name>.
func serviceAccount(user string) (ns, name string, ok bool) {
	rest, found := strings.CutPrefix(user, serviceAccountPrefix)
	if !found {
		return "", "", false
	}
	ns, name, ok = strings.Cut(rest, ":")
	return ns, name, ok && ns != "" && name != "" && !strings.Contains(name, ":")
}

func appendMissing(list []string, values ...string) []string {
	for _, v := range values {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
}

// impersonationUnavailable is the 503 for an authorizer that could not
// decide: the request reached nothing, so the client may retry it.
func impersonationUnavailable() error {
	return apierror.Unavailable("authorization is temporarily unavailable, please retry", 0)
}
