package authn

import (
	"slices"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// cloneResponse deep-copies r, so that an answer kept by a cache or a token
// file cannot be changed through what a caller was handed.
func cloneResponse(r *Response) *Response {
	if r == nil {
		return nil
	}
	out := &Response{User: r.User, Audiences: slices.Clone(r.Audiences)}
	out.User.Groups = slices.Clone(r.User.Groups)
	if r.User.Extra != nil {
		out.User.Extra = make(map[string]authenticationv1.ExtraValue, len(r.User.Extra))
		for k, v := range r.User.Extra {
			out.User.Extra[k] = slices.Clone(v)
		}
	}
	return out
}
