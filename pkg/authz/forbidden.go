package authz

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// htmlEscaper keeps a user-chosen path or name from turning the message into
// markup, as kube does with the same three characters.
var htmlEscaper = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;")

// Forbidden is the 403 a request with attributes a gets when it is not
// allowed, word for word as kube-apiserver writes it, e.g.
//
//	configmaps "x" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "ns"
//
// reason, when set, is appended after a colon.
func Forbidden(a Attributes, reason string) *apierrors.StatusError {
	msg := htmlEscaper.Replace(forbiddenMessage(a))
	if reason != "" {
		msg += ": " + reason
	}
	gr := schema.GroupResource{Group: a.APIGroup, Resource: a.Resource}
	return apierrors.NewForbidden(gr, a.Name, errors.New(msg))
}

// forbiddenMessage says who cannot do what, in the three shapes kube uses:
// a path, a namespaced resource, a cluster-scoped resource.
func forbiddenMessage(a Attributes) string {
	user := a.User.Username
	if !a.ResourceRequest {
		return fmt.Sprintf("User %q cannot %s path %q", user, a.Verb, a.Path)
	}
	resource := a.Resource
	if a.Subresource != "" {
		resource += "/" + a.Subresource
	}
	if a.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q",
			user, a.Verb, resource, a.APIGroup, a.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope",
		user, a.Verb, resource, a.APIGroup)
}
