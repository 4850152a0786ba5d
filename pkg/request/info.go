package request

import (
	"context"
	"net/http"

	"github.com/kubesplit/kubesplit/pkg/requestinfo"
)

type infoKey struct{}

// WithInfo returns a copy of ctx that carries info, what the request is
// about as pkg/requestinfo reads its URL.
func WithInfo(ctx context.Context, info *requestinfo.Info) context.Context {
	return context.WithValue(ctx, infoKey{}, info)
}

// InfoFrom returns the info WithInfo put in ctx, false when none was.
func InfoFrom(ctx context.Context) (*requestinfo.Info, bool) {
	info, ok := ctx.Value(infoKey{}).(*requestinfo.Info)
	return info, ok && info != nil
}

// InfoOf is the info an earlier stage attached to r (see AttachInfo), or
// r's own, parsed now: a request's URL is read once however many stages
// ask.
func InfoOf(r *http.Request) *requestinfo.Info {
	if info, ok := InfoFrom(r.Context()); ok {
		return info
	}
	return requestinfo.New(r)
}

// AttachInfo returns r's info and a request whose context carries it,
// parsing only when no earlier stage did, so that every later stage's
// InfoOf reuses it.
func AttachInfo(r *http.Request) (*requestinfo.Info, *http.Request) {
	if info, ok := InfoFrom(r.Context()); ok {
		return info, r
	}
	info := requestinfo.New(r)
	return info, r.WithContext(WithInfo(r.Context(), info))
}
