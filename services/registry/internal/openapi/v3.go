package openapi

import (
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// buildV3 builds one OpenAPI v3 document a group-version, keyed by the
// name the discovery document lists it under (api/v1, apis/apps/v1).
func (c *catalog) buildV3() (map[string]*spec3.OpenAPI, error) {
	docs := make(map[string]*spec3.OpenAPI, len(c.gvs))
	// The definitions are made once for all the documents, as kube-apiserver
	// makes them (there are some 1,500 built-in ones): every document refers
	// to a definition by the same #/components/schemas/<name>, since the
	// namer never renames.
	defs := c.definitionsV3(func(name string) spec.Ref {
		return spec.MustCreateRef("#/components/schemas/" + common.EscapeJsonPointer(name))
	})
	for _, gv := range c.gvs {
		doc, err := c.buildV3GroupVersion(gv, defs)
		if err != nil {
			return nil, fmt.Errorf("openapi: building the v3 document of %s: %w", gv, err)
		}
		docs[gvPath(gv)] = doc
	}
	return docs, nil
}

// buildV3GroupVersion builds one group-version's document from defs. The
// document gets its own copy of each definition's top-level extensions:
// the builder adds the kind extensions in place to a definition that has
// extensions of its own, and those differ between documents (WatchEvent,
// DeleteOptions). The builder copies what it changes below the top level.
func (c *catalog) buildV3GroupVersion(gv schema.GroupVersion, defs map[string]common.OpenAPIDefinition) (*spec3.OpenAPI, error) {
	// The kinds every group carries (WatchEvent, DeleteOptions) name only
	// this group-version and v1 here, as in kube's documents.
	metaGVs := []schema.GroupVersion{gv}
	if gv != (schema.GroupVersion{Version: "v1"}) {
		metaGVs = append(metaGVs, schema.GroupVersion{Version: "v1"})
	}
	cfg := &common.OpenAPIV3Config{
		Info:                           info,
		CommonResponses:                map[int]*spec3.Response{401: {ResponseProps: spec3.ResponseProps{Description: "Unauthorized"}}},
		Definitions:                    ownExtensions(defs),
		GetDefinitionName:              newKinds(c.resources, metaGVs).definitionNamer,
		GetOperationIDAndTagsFromRoute: operationIDAndTags,
		SecuritySchemes: spec3.SecuritySchemes{bearerToken: &spec3.SecurityScheme{SecuritySchemeProps: spec3.SecuritySchemeProps{
			Type: "apiKey", Name: "authorization", In: "header",
			Description: "Bearer Token authentication",
		}}},
	}
	doc, err := builder3.BuildOpenAPISpecFromRoutes(c.containers(gv), cfg)
	if err != nil {
		return nil, err
	}
	// builder3 does not copy a default security requirement; set it as
	// kube's documents have it.
	doc.SecurityRequirement = []map[string][]string{{bearerToken: {}}}
	return doc, nil
}

// ownExtensions copies defs with a fresh top-level extensions map in each
// definition; everything else is shared.
func ownExtensions(defs map[string]common.OpenAPIDefinition) map[string]common.OpenAPIDefinition {
	out := make(map[string]common.OpenAPIDefinition, len(defs))
	for name, d := range defs {
		d.Schema.Extensions = maps.Clone(d.Schema.Extensions)
		out[name] = d
	}
	return out
}
