package kubetype

import (
	"context"

	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// Request is what kube's strategies read of the request they run in: the
// resource addressed and the user writing.
type Request struct {
	Verb        string
	Group       string
	Version     string
	Resource    string
	Subresource string
	Namespace   string
	Name        string

	User   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// WithRequest returns ctx carrying r the way kube-apiserver's handlers
// leave it for the strategies (request info, namespace, user).
func WithRequest(ctx context.Context, r Request) context.Context {
	ctx = genericapirequest.WithNamespace(ctx, r.Namespace)
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true,
		Verb:              r.Verb,
		APIGroup:          r.Group,
		APIVersion:        r.Version,
		Namespace:         r.Namespace,
		Resource:          r.Resource,
		Subresource:       r.Subresource,
		Name:              r.Name,
	})
	return genericapirequest.WithUser(ctx, &user.DefaultInfo{Name: r.User, UID: r.UID, Groups: r.Groups, Extra: r.Extra})
}
