package openapi

import (
	"net/http"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/common"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// Media types of requests and responses. The registry speaks JSON; kube
// lists YAML and protobuf as well, which clients do not need to see here.
var (
	produceObject = []string{"application/json"}
	produceStream = []string{"application/json", "application/json;stream=watch"}
	consumeAny    = []string{"*/*"}
	// consumePatch are the patch types of every resource. Strategic merge
	// patch needs a Go type's patch strategies, so it is added only for
	// kinds the binary compiles in, as kube does; kubectl apply picks the patch type by
	// whether the PATCH operation lists it.
	consumePatch = []string{
		"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml",
	}
	consumeStrategicPatch = "application/strategic-merge-patch+json"
)

// rootPath is where a group-version's resources live: /api/v1 for the
// legacy group, /apis/<group>/<version> for the others.
func rootPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "/api/" + gv.Version
	}
	return "/apis/" + gv.Group + "/" + gv.Version
}

// resourcePaths builds the routes of one resource.
type resourcePaths struct {
	info     *resource.Info
	kind     model // the object's definition
	list     model // the list's definition
	typed    bool  // whether kind is a Go type, which makes strategic merge patch possible
	gvk      metav1.GroupVersionKind
	tag      string
	nsParams []common.Parameter // {namespace}, for namespaced resources
	scope    string             // "Namespaced" in the operation IDs of namespaced resources
}

func newResourcePaths(info *resource.Info, kind, list model, typed bool) *resourcePaths {
	p := &resourcePaths{
		info: info, kind: kind, list: list, typed: typed,
		gvk: metav1.GroupVersionKind{Group: info.Group, Version: info.Version, Kind: info.Kind},
		tag: operationTag(info.GroupVersion()),
	}
	if info.Namespaced {
		p.nsParams = []common.Parameter{pathParam("namespace", "the namespace the objects belong to")}
		p.scope = "Namespaced"
	}
	return p
}

// routes lists every operation kube serves for a resource: the collection,
// the object, its status and finalize subresources if it has them, the
// cross-namespace list, and the deprecated watch paths, plus scale. Other subresources
// are left out: their request and response types are not known here.
func (p *resourcePaths) routes() []common.Route {
	root := rootPath(p.info.GroupVersion())
	scoped := root + "/" + p.info.Resource
	if p.info.Namespaced {
		scoped = root + "/namespaces/{namespace}/" + p.info.Resource
	}
	item := scoped + "/{name}"

	if p.info.ServedVerbs != nil && !slices.Contains(p.info.ServedVerbs, "get") {
		// A resource of no object of its own (bindings: create only).
		return p.toRoutes(p.served(p.collection(scoped)))
	}
	ops := p.collection(scoped)
	ops = append(ops, p.object(item)...)
	if p.info.StatusSubresource {
		ops = append(ops, p.status(item+"/status")...)
	}
	if p.info.HasSubresource("finalize") {
		ops = append(ops, p.finalize(item+"/finalize"))
	}
	if p.info.Scale != nil {
		ops = append(ops, p.scale(item+"/scale")...)
	}
	ops = append(ops, p.watches(root)...)
	if p.info.Namespaced {
		ops = append(ops, op{
			method: http.MethodGet, path: root + "/" + p.info.Resource, verb: "list", action: "list",
			name: p.info.Kind + "ForAllNamespaces", doc: "list or watch objects of kind " + p.info.Kind,
			query: listParams, produces: produceStream, responses: ok(p.list),
		})
	}
	return p.toRoutes(p.served(ops))
}

func (p *resourcePaths) toRoutes(ops []op) []common.Route {
	out := make([]common.Route, 0, len(ops))
	for _, o := range ops {
		out = append(out, p.route(o))
	}
	return out
}

// served keeps the operations of the verbs the resource serves (all,
// unless it names them: namespaces have no deletecollection).
func (p *resourcePaths) served(ops []op) []op {
	if p.info.ServedVerbs == nil {
		return ops
	}
	var out []op
	for _, o := range ops {
		if slices.Contains(p.info.ServedVerbs, verbOf[o.action]) {
			out = append(out, o)
		}
	}
	return out
}

// verbOf is the API verb of an operation's x-kubernetes-action.
var verbOf = map[string]string{
	"list": "list", "post": "create", "deletecollection": "deletecollection", "get": "get", "put": "update",
	"patch": "patch", "delete": "delete", "watch": "watch", "watchlist": "watch",
}

// op is one operation before it becomes a route.
type op struct {
	method, path string
	verb         string // what the operation ID starts with: read, list, create, replace, patch, delete, watch
	action       string // the x-kubernetes-action
	name         string // the rest of the operation ID, such as NamespacedPod
	doc          string
	pathParams   []common.Parameter
	query        []common.Parameter
	body         model // the request body's definition, if it takes one
	consumes     []string
	produces     []string
	responses    []common.StatusCodeResponse
	// gvk is the kind the operation serves when it is not the resource's
	// own (the scale subresource serves autoscaling/v1 Scale).
	gvk *metav1.GroupVersionKind
}

// collection is list, create and deletecollection on the resource's path.
func (p *resourcePaths) collection(path string) []op {
	k, name := p.info.Kind, p.scope+p.info.Kind
	return []op{
		{method: http.MethodGet, path: path, verb: "list", action: "list", name: name,
			doc: "list or watch objects of kind " + k, pathParams: p.nsParams, query: listParams,
			produces: produceStream, responses: ok(p.list)},
		{method: http.MethodPost, path: path, verb: "create", action: "post", name: name,
			doc: "create a " + k, pathParams: p.nsParams, query: writeParams,
			body: p.kind, consumes: consumeAny, produces: produceObject, responses: created(p.kind)},
		{method: http.MethodDelete, path: path, verb: "delete", action: "deletecollection", name: "Collection" + name,
			doc: "delete collection of " + k, pathParams: p.nsParams, query: deleteCollectionParams,
			body: defDeleteOptions, consumes: consumeAny, produces: produceObject, responses: ok(defStatus)},
	}
}

// object is get, replace, patch and delete on one object's path.
func (p *resourcePaths) object(path string) []op {
	k, name, params := p.info.Kind, p.scope+p.info.Kind, p.itemParams()
	return []op{
		{method: http.MethodGet, path: path, verb: "read", action: "get", name: name,
			doc: "read the specified " + k, pathParams: params,
			produces: produceObject, responses: ok(p.kind)},
		{method: http.MethodPut, path: path, verb: "replace", action: "put", name: name,
			doc: "replace the specified " + k, pathParams: params, query: writeParams,
			body: p.kind, consumes: consumeAny, produces: produceObject, responses: replaced(p.kind)},
		{method: http.MethodPatch, path: path, verb: "patch", action: "patch", name: name,
			doc: "partially update the specified " + k, pathParams: params, query: patchParams,
			body: defPatch, consumes: p.patchTypes(), produces: produceObject, responses: replaced(p.kind)},
		{method: http.MethodDelete, path: path, verb: "delete", action: "delete", name: name,
			doc: "delete a " + k, pathParams: params, query: deleteParams,
			body: defDeleteOptions, consumes: consumeAny, produces: produceObject, responses: accepted(defStatus)},
	}
}

// status is get, replace and patch on the status subresource, which serve
// the whole object, as kube's do.
func (p *resourcePaths) status(path string) []op {
	k, name, params := p.info.Kind, p.scope+p.info.Kind+"Status", p.itemParams()
	return []op{
		{method: http.MethodGet, path: path, verb: "read", action: "get", name: name,
			doc: "read status of the specified " + k, pathParams: params,
			produces: produceObject, responses: ok(p.kind)},
		{method: http.MethodPut, path: path, verb: "replace", action: "put", name: name,
			doc: "replace status of the specified " + k, pathParams: params, query: writeParams,
			body: p.kind, consumes: consumeAny, produces: produceObject, responses: replaced(p.kind)},
		{method: http.MethodPatch, path: path, verb: "patch", action: "patch", name: name,
			doc: "partially update status of the specified " + k, pathParams: params, query: patchParams,
			body: defPatch, consumes: p.patchTypes(), produces: produceObject, responses: replaced(p.kind)},
	}
}

// scaleGVK is the kind every scale subresource serves.
var scaleGVK = metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// scale is get, replace and patch on the scale subresource, which serve an
// autoscaling/v1 Scale.
func (p *resourcePaths) scale(path string) []op {
	k, name, params := p.info.Kind, p.scope+p.info.Kind+"Scale", p.itemParams()
	return []op{
		{method: http.MethodGet, path: path, verb: "read", action: "get", name: name, gvk: &scaleGVK,
			doc: "read scale of the specified " + k, pathParams: params,
			produces: produceObject, responses: ok(defScale)},
		{method: http.MethodPut, path: path, verb: "replace", action: "put", name: name, gvk: &scaleGVK,
			doc: "replace scale of the specified " + k, pathParams: params, query: writeParams,
			body: defScale, consumes: consumeAny, produces: produceObject, responses: replaced(defScale)},
		{method: http.MethodPatch, path: path, verb: "patch", action: "patch", name: name, gvk: &scaleGVK,
			doc: "partially update scale of the specified " + k, pathParams: params, query: patchParams,
			body: defPatch, consumes: append(append([]string{}, consumePatch...), consumeStrategicPatch),
			produces: produceObject, responses: replaced(defScale)},
	}
}

// finalize is the namespace finalize subresource, which only takes PUT.
func (p *resourcePaths) finalize(path string) op {
	return op{method: http.MethodPut, path: path, verb: "replace", action: "put", name: p.scope + p.info.Kind + "Finalize",
		doc: "replace finalize of the specified " + p.info.Kind, pathParams: p.itemParams(), query: writeParams,
		body: p.kind, consumes: consumeAny, produces: produceObject, responses: replaced(p.kind)}
}

// watches are the deprecated /watch/ paths kube still documents: one object,
// the resource's collection, and for namespaced resources every namespace.
func (p *resourcePaths) watches(root string) []op {
	k, name := p.info.Kind, p.scope+p.info.Kind
	scoped := root + "/watch/" + p.info.Resource
	if p.info.Namespaced {
		scoped = root + "/watch/namespaces/{namespace}/" + p.info.Resource
	}
	listDoc := "watch changes to a list of " + k + ". Deprecated: list with watch=true instead."
	ops := []op{
		{method: http.MethodGet, path: scoped + "/{name}", verb: "watch", action: "watch", name: name,
			doc: "watch changes to an object of kind " + k +
				". Deprecated: list with watch=true and a fieldSelector on metadata.name instead.",
			pathParams: p.itemParams(), query: listParams, produces: produceStream, responses: ok(defWatchEvent)},
		{method: http.MethodGet, path: scoped, verb: "watch", action: "watchlist", name: name + "List",
			doc: listDoc, pathParams: p.nsParams, query: listParams, produces: produceStream, responses: ok(defWatchEvent)},
	}
	if p.info.Namespaced {
		ops = append(ops, op{method: http.MethodGet, path: root + "/watch/" + p.info.Resource, verb: "watch",
			action: "watchlist", name: k + "ListForAllNamespaces",
			doc: listDoc, query: listParams, produces: produceStream, responses: ok(defWatchEvent)})
	}
	return ops
}

// itemParams are the path parameters of one object: {name}, after
// {namespace} for namespaced resources.
func (p *resourcePaths) itemParams() []common.Parameter {
	name := pathParam("name", "name of the "+p.info.Kind)
	return append(append([]common.Parameter{}, p.nsParams...), name)
}

func (p *resourcePaths) patchTypes() []string {
	types := append([]string{}, consumePatch...)
	if p.typed {
		types = append(types, consumeStrategicPatch)
	}
	return types
}

// route turns an op into a route. Every operation also takes pretty, as
// kube's do, and a body when it has a body model: required, except a
// delete's DeleteOptions.
func (p *resourcePaths) route(o op) *route {
	params := append(append(append([]common.Parameter{}, o.pathParams...), o.query...), paramPretty)
	if o.body != "" {
		params = append(params, bodyParam(o.verb != "delete"))
	}
	gvk := p.gvk
	if o.gvk != nil {
		gvk = *o.gvk
	}
	return &route{
		method: o.method, path: o.path, description: o.doc,
		id: operationID(o.verb, p.info.GroupVersion(), o.name), tag: p.tag,
		action: o.action, gvk: gvk, params: params, body: o.body,
		consumes: o.consumes, produces: o.produces, responses: o.responses,
	}
}

func ok(m model) []common.StatusCodeResponse {
	return []common.StatusCodeResponse{response{http.StatusOK, "OK", m}}
}

func replaced(m model) []common.StatusCodeResponse {
	return append(ok(m), response{http.StatusCreated, "Created", m})
}

func created(m model) []common.StatusCodeResponse {
	return append(replaced(m), response{http.StatusAccepted, "Accepted", m})
}

func accepted(m model) []common.StatusCodeResponse {
	return append(ok(m), response{http.StatusAccepted, "Accepted", m})
}
