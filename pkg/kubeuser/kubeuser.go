// Package kubeuser converts between the two ways Kubernetes describes a
// user: authentication.k8s.io's UserInfo, which reviews carry between
// kubesplit's services, and k8s.io/apiserver's user.Info, which kube's own
// code (admission plugins, authorizers, strategies) takes.
package kubeuser

import (
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apiserver/pkg/authentication/user"
)

// FromUserInfo is a review's user as kube's code takes it.
func FromUserInfo(u authenticationv1.UserInfo) user.Info {
	var extra map[string][]string
	if len(u.Extra) > 0 {
		extra = make(map[string][]string, len(u.Extra))
		for k, v := range u.Extra {
			extra[k] = []string(v)
		}
	}
	return &user.DefaultInfo{Name: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra}
}

// ToUserInfo is kube's user as a review carries it.
func ToUserInfo(u user.Info) authenticationv1.UserInfo {
	out := authenticationv1.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups()}
	if extra := u.GetExtra(); len(extra) > 0 {
		out.Extra = make(map[string]authenticationv1.ExtraValue, len(extra))
		for k, v := range extra {
			out.Extra[k] = v
		}
	}
	return out
}
