package openapi

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/common"
)

// The extensions kube puts on every resource operation: what the operation
// does (get, list, watch, watchlist, post, put, patch, delete,
// deletecollection) and the kind it serves. kubectl finds the PATCH operation
// of a kind through the second.
const (
	extAction = "x-kubernetes-action"
	extGVK    = "x-kubernetes-group-version-kind"
)

// route is one operation on one path, in the shape kube-openapi's builders
// read (common.Route). kube-apiserver feeds them go-restful routes; ours are
// plain values computed from the resource table.
type route struct {
	method      string
	path        string
	id          string // the full operation ID, such as readCoreV1NamespacedPod
	tag         string
	description string
	action      string
	gvk         metav1.GroupVersionKind
	params      []common.Parameter
	body        model // the request body's definition, "" when there is none
	consumes    []string
	produces    []string
	responses   []common.StatusCodeResponse
}

var _ common.Route = (*route)(nil)

func (r *route) Method() string                                   { return r.method }
func (r *route) Path() string                                     { return r.path }
func (r *route) OperationName() string                            { return r.id }
func (r *route) Parameters() []common.Parameter                   { return r.params }
func (r *route) Description() string                              { return r.description }
func (r *route) Consumes() []string                               { return r.consumes }
func (r *route) Produces() []string                               { return r.produces }
func (r *route) ResponsePayloadSample() any                       { return nil }
func (r *route) StatusCodeResponses() []common.StatusCodeResponse { return r.responses }

// Metadata carries the x-kubernetes-* extensions, which the builders copy
// onto the operation.
func (r *route) Metadata() map[string]any {
	return map[string]any{extAction: r.action, extGVK: r.gvk}
}

// RequestPayloadSample names the body's definition; the builders only need
// its name, which model provides.
func (r *route) RequestPayloadSample() any {
	if r.body == "" {
		return nil
	}
	return r.body
}

// operationIDAndTags is the builders' hook for naming operations: our routes
// carry their final ID already.
func operationIDAndTags(r common.Route) (string, []string, error) {
	rt, ok := r.(*route)
	if !ok {
		return r.OperationName(), nil, nil
	}
	return rt.id, []string{rt.tag}, nil
}

// routes is the routes of one group-version (common.RouteContainer).
type routes struct {
	root string // "/api/v1", "/apis/apps/v1"
	list []common.Route
}

var _ common.RouteContainer = (*routes)(nil)

func (c *routes) RootPath() string                   { return c.root }
func (c *routes) PathParameters() []common.Parameter { return nil }
func (c *routes) Routes() []common.Route             { return c.list }

// model names an OpenAPI definition where the builders expect a sample Go
// value: they ask such values for their model name (util.OpenAPIModelNamer),
// so a custom resource, which has no Go type, is named the same way.
type model string

// OpenAPIModelName returns the definition name.
func (m model) OpenAPIModelName() string { return string(m) }

// response is one status code of an operation and the definition it returns.
type response struct {
	code    int
	message string
	model   model
}

var _ common.StatusCodeResponse = response{}

func (r response) Code() int       { return r.code }
func (r response) Message() string { return r.message }
func (r response) Model() any      { return r.model }

// param is one parameter of an operation (common.Parameter).
type param struct {
	name        string
	description string
	kind        common.ParameterKind
	dataType    string // "string", "integer", "boolean"; ignored for the body
	required    bool
}

var _ common.Parameter = param{}

func (p param) Name() string               { return p.name }
func (p param) Description() string        { return p.description }
func (p param) Required() bool             { return p.required }
func (p param) Kind() common.ParameterKind { return p.kind }
func (p param) DataType() string           { return p.dataType }

// AllowMultiple is false for every parameter kube documents, which the
// builders render as uniqueItems: true, as kube's documents have it.
func (p param) AllowMultiple() bool { return false }
