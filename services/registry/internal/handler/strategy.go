package handler

import (
	"context"

	apirequest "github.com/kubesplit/kubesplit/pkg/request"
	"github.com/kubesplit/kubesplit/services/registry/internal/kubetype"
)

// strategyContext is the request's context as kube's strategies read it:
// the resource addressed and the user writing.
func (q *request) strategyContext() context.Context {
	if q.kubeCtx != nil {
		return q.kubeCtx
	}
	r := kubetype.Request{
		Verb: q.info.Verb, Group: q.res.Group, Version: q.res.Version, Resource: q.res.Resource,
		Subresource: q.info.Subresource, Namespace: q.info.Namespace, Name: q.info.Name,
	}
	if u, ok := apirequest.UserFrom(q.r.Context()); ok {
		r.User, r.UID, r.Groups = u.Username, u.UID, u.Groups
		r.Extra = map[string][]string{}
		for k, v := range u.Extra {
			r.Extra[k] = v
		}
	}
	q.kubeCtx = kubetype.WithEnv(kubetype.WithRequest(q.r.Context(), r), q.h.strategyEnv())
	return q.kubeCtx
}

// unconditionalUpdates reports whether a PUT without a resourceVersion
// overwrites the object, as kube lets it for most built-in kinds.
func (q *request) unconditionalUpdates() bool {
	if s := q.res.Strategy; s != nil {
		return s.AllowUnconditionalUpdate(q.strategyContext())
	}
	return !q.res.ConditionalUpdate
}
