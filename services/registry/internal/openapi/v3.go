package openapi

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/spec3"
)

// buildV3 builds one OpenAPI v3 document a group-version, keyed by the
// name the discovery document lists it under (api/v1, apis/apps/v1).
func (c *catalog) buildV3() (map[string]*spec3.OpenAPI, error) {
	docs := make(map[string]*spec3.OpenAPI, len(c.gvs))
	for _, gv := range c.gvs {
		doc, err := c.buildV3GroupVersion(gv)
		if err != nil {
			return nil, fmt.Errorf("openapi: building the v3 document of %s: %w", gv, err)
		}
		docs[gvPath(gv)] = doc
	}
	return docs, nil
}

// buildV3GroupVersion builds one group-version's document. Each document
// gets definitions of its own (GetDefinitions, not a shared Definitions
// map): the builder adds the kind extensions to a definition's extensions
// map in place, and those differ between documents.
func (c *catalog) buildV3GroupVersion(gv schema.GroupVersion) (*spec3.OpenAPI, error) {
	// The kinds every group carries (WatchEvent, DeleteOptions) name only
	// this group-version and v1 here, as in kube's documents.
	metaGVs := []schema.GroupVersion{gv}
	if gv != (schema.GroupVersion{Version: "v1"}) {
		metaGVs = append(metaGVs, schema.GroupVersion{Version: "v1"})
	}
	cfg := &common.OpenAPIV3Config{
		Info:                           info,
		CommonResponses:                map[int]*spec3.Response{401: {ResponseProps: spec3.ResponseProps{Description: "Unauthorized"}}},
		GetDefinitions:                 c.definitions,
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
