package filters

import (
	"net/http"
	"slices"
)

// Chain composes middlewares so that the first listed runs first: it is
// the outermost, sees the request before the others and the response after
// them. The aggregator's chain is therefore written down in the order a
// request meets it, unlike kube's DefaultBuildHandlerChain, which wraps the
// innermost first and reads backwards.
//
// Every middleware must be non-nil; constructors that can fail return an
// error for the caller to check before it builds the chain.
func Chain(fs ...func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	fs = slices.Clone(fs) // the caller may reuse its slice
	return func(h http.Handler) http.Handler {
		for i := len(fs) - 1; i >= 0; i-- {
			h = fs[i](h)
		}
		return h
	}
}
