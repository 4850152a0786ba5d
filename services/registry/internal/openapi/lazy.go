package openapi

import (
	"strconv"
	"sync/atomic"

	"k8s.io/kube-openapi/pkg/cached"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// generation tells one set of documents from the next: kube-openapi's
// handlers keep what they rendered of a document until its etag changes.
// The hashes clients see are of the rendered content, not this.
var generation atomic.Uint64

func nextGeneration() string { return strconv.FormatUint(generation.Add(1), 10) }

// lazyV2 is the catalog's v2 document, built once, when first asked for.
func (c *catalog) lazyV2() cached.Value[*spec.Swagger] {
	etag := nextGeneration()
	return cached.Once(cached.Func(func() (*spec.Swagger, string, error) {
		doc, err := c.buildV2()
		return doc, etag, err
	}))
}

// lazyV3 are the catalog's v3 documents by name. They share their
// definitions, so the first one asked for builds them all (v3 discovery,
// which lists each one's hash, asks for every one anyway).
func (c *catalog) lazyV3() map[string]cached.Value[*spec3.OpenAPI] {
	etag := nextGeneration()
	all := cached.Once(cached.Func(func() (map[string]*spec3.OpenAPI, string, error) {
		docs, err := c.buildV3()
		return docs, etag, err
	}))
	out := make(map[string]cached.Value[*spec3.OpenAPI], len(c.gvs))
	for _, gv := range c.gvs {
		name := gvPath(gv)
		out[name] = cached.Transform(func(docs map[string]*spec3.OpenAPI, etag string, err error) (*spec3.OpenAPI, string, error) {
			if err != nil {
				return nil, "", err
			}
			return docs[name], etag, nil
		}, all)
	}
	return out
}
