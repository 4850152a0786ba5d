package openapi

import (
	"fmt"

	"k8s.io/kube-openapi/pkg/builder"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// info is the title block of both documents.
var info = &spec.Info{InfoProps: spec.InfoProps{Title: "kubesplit", Version: "unversioned"}}

// bearerToken is the security scheme kube declares: a token in the
// Authorization header.
const bearerToken = "BearerToken"

// unauthorized is the response every operation can give.
var unauthorized = spec.Response{ResponseProps: spec.ResponseProps{Description: "Unauthorized"}}

// buildV2 builds the OpenAPI v2 (swagger) document of every group-version.
func (c *catalog) buildV2() (*spec.Swagger, error) {
	cfg := &common.Config{
		ProtocolList:                   []string{"https"},
		Info:                           info,
		CommonResponses:                map[int]spec.Response{401: unauthorized},
		GetDefinitions:                 c.definitionsV2,
		GetDefinitionName:              newKinds(c.resources, c.gvs).definitionNamer,
		GetOperationIDAndTagsFromRoute: operationIDAndTags,
		SecurityDefinitions: &spec.SecurityDefinitions{bearerToken: &spec.SecurityScheme{SecuritySchemeProps: spec.SecuritySchemeProps{
			Type: "apiKey", Name: "authorization", In: "header",
			Description: "Bearer Token authentication",
		}}},
		DefaultSecurity: []map[string][]string{{bearerToken: {}}},
	}
	doc, err := builder.BuildOpenAPISpecFromRoutes(c.containers(c.gvs...), cfg)
	if err != nil {
		return nil, fmt.Errorf("openapi: building the v2 document: %w", err)
	}
	// v2 has no way to say a default applies only when a field is absent,
	// and kube leaves defaults out of v2 for that reason; v3 keeps them.
	doc.Definitions = handler.PruneDefaults(doc.Definitions)
	return doc, nil
}
