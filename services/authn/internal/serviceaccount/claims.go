package serviceaccount

import (
	"github.com/golang-jwt/jwt/v5"
)

// claims is the payload of a service-account token, field for field what
// kube-apiserver writes, so that relying parties written for kube's tokens
// read ours.
type claims struct {
	jwt.RegisteredClaims
	Kubernetes *kubernetesClaims `json:"kubernetes.io,omitempty"`
}

// kubernetesClaims is kube's private "kubernetes.io" claim: whose token it
// is, and the object it is bound to, if any.
type kubernetesClaims struct {
	Namespace      string     `json:"namespace,omitempty"`
	ServiceAccount objectRef  `json:"serviceaccount"`
	Pod            *objectRef `json:"pod,omitempty"`
	Secret         *objectRef `json:"secret,omitempty"`
	Node           *objectRef `json:"node,omitempty"`
	// WarnAfter is set by kube on pod tokens it extends past their asked-for
	// lifetime; it is parsed so that such a token is not misread.
	WarnAfter *jwt.NumericDate `json:"warnafter,omitempty"`
}

// objectRef names one object by name and uid.
type objectRef struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// serviceAccount returns the account the private claim names, and false
// when the claim is incomplete, disagrees with the subject, or binds the
// token to an object: such a token was not issued here, and its binding
// could not be checked.
func (c *claims) serviceAccount() (ServiceAccountRef, bool) {
	k := c.Kubernetes
	if k == nil || k.Pod != nil || k.Secret != nil || k.Node != nil {
		return ServiceAccountRef{}, false
	}
	sa := ServiceAccountRef{Namespace: k.Namespace, Name: k.ServiceAccount.Name, UID: k.ServiceAccount.UID}
	if sa.validate() != nil || c.Subject != Username(sa.Namespace, sa.Name) {
		return ServiceAccountRef{}, false
	}
	return sa, true
}
