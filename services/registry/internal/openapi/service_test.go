package openapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
	"k8s.io/kube-openapi/pkg/handler3"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/yaml"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

const (
	acceptV2Proto = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	acceptV3Proto = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
)

// serve starts a server with the Service registered on a ServeMux, as the
// registry does.
func serve(t *testing.T, resources []*resource.Info) (*httptest.Server, *Service) {
	t.Helper()
	svc, err := New(resources)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	svc.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, svc
}

// get fetches a path and fails the test unless the status is want.
func get(t *testing.T, srv *httptest.Server, path, accept string, want int) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want {
		t.Fatalf("GET %s: status %d, want %d: %.300s", path, resp.StatusCode, want, body)
	}
	return resp, body
}

func TestV2JSON(t *testing.T) {
	srv, _ := serve(t, resource.Builtins())
	_, body := get(t, srv, PathV2, "application/json", http.StatusOK)
	var doc spec.Swagger
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	pod, ok := doc.Definitions["io.k8s.api.core.v1.Pod"]
	if !ok {
		t.Fatal("no io.k8s.api.core.v1.Pod definition")
	}
	if got := gvkList(t, pod.Extensions[extGVK]); len(got) != 1 || got[0] != (gvk{"", "v1", "Pod"}) {
		t.Errorf("Pod's %s = %v", extGVK, got)
	}
	op := doc.Paths.Paths["/api/v1/namespaces/{name}"].Patch
	if op == nil {
		t.Fatal("no PATCH /api/v1/namespaces/{name}")
	}
	if op.ID != "patchCoreV1Namespace" {
		t.Errorf("operation ID %q", op.ID)
	}
	if got := gvkList(t, op.Extensions[extGVK]); len(got) != 1 || got[0] != (gvk{"", "v1", "Namespace"}) {
		t.Errorf("operation's %s = %v", extGVK, got)
	}
	if !hasV2Param(&doc, op.Parameters, "fieldValidation") {
		t.Errorf("PATCH /api/v1/namespaces/{name} has no fieldValidation parameter")
	}
}

// TestV2Protobuf reads the protobuf document as kubectl's v2 fallback does:
// the PATCH operation carrying the Namespace kind must list fieldValidation.
func TestV2Protobuf(t *testing.T) {
	srv, _ := serve(t, resource.Builtins())
	resp, body := get(t, srv, PathV2, acceptV2Proto, http.StatusOK)
	if ct := resp.Header.Get("Content-Type"); !strings.Contains(ct, "protobuf") {
		t.Fatalf("Content-Type %q", ct)
	}
	var doc openapi_v2.Document
	if err := proto.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, p := range doc.GetPaths().GetPath() {
		op := p.GetValue().GetPatch()
		if p.GetName() != "/api/v1/namespaces/{name}" || op == nil {
			continue
		}
		found = true
		if !protoHasGVK(t, op.GetVendorExtension(), gvk{"", "v1", "Namespace"}) {
			t.Errorf("PATCH operation lacks the Namespace kind")
		}
		var names []string
		for _, param := range op.GetParameters() {
			names = append(names, param.GetParameter().GetNonBodyParameter().GetQueryParameterSubSchema().GetName())
		}
		if !contains(names, "fieldValidation") {
			t.Errorf("inline query parameters %v lack fieldValidation", names)
		}
	}
	if !found {
		t.Fatal("no PATCH /api/v1/namespaces/{name} in the protobuf document")
	}
}

func TestV2ETag(t *testing.T) {
	srv, _ := serve(t, resource.Builtins())
	resp, _ := get(t, srv, PathV2, "application/json", http.StatusOK)
	etag := resp.Header.Get("Etag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+PathV2, nil)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("If-None-Match", etag)
	again, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if again.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match: status %d, want 304", again.StatusCode)
	}
}

// TestV3 follows the discovery document to every group-version's document
// and checks that it holds the kinds of that group-version.
func TestV3(t *testing.T) {
	resources := resource.Builtins()
	srv, _ := serve(t, resources)
	disc := v3Discovery(t, srv)
	for _, want := range []string{"api/v1", "apis/apps/v1"} {
		if _, ok := disc.Paths[want]; !ok {
			t.Errorf("discovery lacks %s: %v", want, disc.Paths)
		}
	}
	for name, gv := range disc.Paths {
		if !strings.Contains(gv.ServerRelativeURL, "?hash=") {
			t.Errorf("%s: URL %q has no hash", name, gv.ServerRelativeURL)
		}
		resp, body := get(t, srv, gv.ServerRelativeURL, "application/json", http.StatusOK)
		if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
			t.Errorf("%s: Cache-Control %q", name, cc)
		}
		var doc spec3.OpenAPI
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, r := range resources {
			if gvPath(r.GroupVersion()) != name {
				continue
			}
			if !v3HasKind(t, &doc, gvk{r.Group, r.Version, r.Kind}) {
				t.Errorf("%s: no schema carries the kind %s", name, r.Kind)
			}
		}
	}
}

// TestV3MetaKindsPerDocument checks that DeleteOptions names only the
// document's own group-version and v1 in each v3 document, as kube's do:
// the documents are built from shared definitions, and one document's kind
// extensions must not show in another.
func TestV3MetaKindsPerDocument(t *testing.T) {
	srv, _ := serve(t, resource.Builtins())
	for name, gv := range v3Discovery(t, srv).Paths {
		_, body := get(t, srv, gv.ServerRelativeURL, "application/json", http.StatusOK)
		var doc spec3.OpenAPI
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		del, ok := doc.Components.Schemas[string(defDeleteOptions)]
		if !ok {
			t.Errorf("%s: no %s", name, defDeleteOptions)
			continue
		}
		want := []gvk{{"", "v1", "DeleteOptions"}}
		if parts := strings.Split(name, "/"); parts[0] == "apis" {
			want = append(want, gvk{parts[1], parts[2], "DeleteOptions"})
		}
		if got := gvkList(t, del.Extensions[extGVK]); !slices.Equal(got, want) {
			t.Errorf("%s: DeleteOptions' %s = %v, want %v", name, extGVK, got, want)
		}
	}
}

// TestV3PatchFieldValidation reads the api/v1 document as kubectl's v3
// verifier does.
func TestV3PatchFieldValidation(t *testing.T) {
	srv, _ := serve(t, resource.Builtins())
	_, body := get(t, srv, PathV3+"/api/v1", "application/json", http.StatusOK)
	var doc spec3.OpenAPI
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	op := doc.Paths.Paths["/api/v1/namespaces/{name}"].Patch
	if op == nil {
		t.Fatal("no PATCH /api/v1/namespaces/{name}")
	}
	if got := gvkList(t, op.Extensions[extGVK]); len(got) != 1 || got[0] != (gvk{"", "v1", "Namespace"}) {
		t.Errorf("operation's %s = %v", extGVK, got)
	}
	var names []string
	for _, p := range op.Parameters {
		names = append(names, p.Name)
	}
	if !contains(names, "fieldValidation") {
		t.Errorf("parameters %v lack fieldValidation", names)
	}
	if _, ok := op.RequestBody.Content["application/strategic-merge-patch+json"]; !ok {
		t.Errorf("PATCH of a built-in kind does not accept strategic merge patch")
	}
}

func TestV3Protobuf(t *testing.T) {
	srv, _ := serve(t, resource.Builtins())
	resp, body := get(t, srv, PathV3+"/apis/apps/v1", acceptV3Proto, http.StatusOK)
	if ct := resp.Header.Get("Content-Type"); !strings.Contains(ct, "protobuf") {
		t.Fatalf("Content-Type %q", ct)
	}
	var doc openapi_v3.Document
	if err := proto.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, s := range doc.GetComponents().GetSchemas().GetAdditionalProperties() {
		found = found || s.GetName() == "io.k8s.api.apps.v1.Deployment"
	}
	if !found {
		t.Error("no io.k8s.api.apps.v1.Deployment schema in the protobuf document")
	}
}

func TestNotFound(t *testing.T) {
	srv, _ := serve(t, resource.Builtins())
	for _, path := range []string{PathV3 + "/apis/nope/v1", PathV3 + "/", "/openapi/v4"} {
		get(t, srv, path, "application/json", http.StatusNotFound)
	}
}

// TestUpdate adds a custom resource and removes it again.
func TestUpdate(t *testing.T) {
	srv, svc := serve(t, resource.Builtins())
	cronTab := &resource.Info{Group: "stable.example.com", Version: "v1", Resource: "crontabs", Kind: "CronTab",
		Singular: "crontab", Namespaced: true}
	if err := svc.Update(append(resource.Builtins(), cronTab)); err != nil {
		t.Fatal(err)
	}
	disc := v3Discovery(t, srv)
	gv, ok := disc.Paths["apis/stable.example.com/v1"]
	if !ok {
		t.Fatalf("discovery lacks the new group-version: %v", disc.Paths)
	}
	_, body := get(t, srv, gv.ServerRelativeURL, "application/json", http.StatusOK)
	var doc spec3.OpenAPI
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if !v3HasKind(t, &doc, gvk{"stable.example.com", "v1", "CronTab"}) {
		t.Error("no schema carries the CronTab kind")
	}
	op := doc.Paths.Paths["/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}"].Patch
	if op == nil || op.OperationId != "patchStableExampleComV1NamespacedCronTab" {
		t.Fatalf("PATCH operation: %+v", op)
	}
	if _, ok := op.RequestBody.Content["application/strategic-merge-patch+json"]; ok {
		t.Error("a custom resource accepts strategic merge patch")
	}
	_, body = get(t, srv, PathV2, "application/json", http.StatusOK)
	if !strings.Contains(string(body), "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}") {
		t.Error("the v2 document lacks the custom resource's paths")
	}

	if err := svc.Update(resource.Builtins()); err != nil {
		t.Fatal(err)
	}
	if _, ok := v3Discovery(t, srv).Paths["apis/stable.example.com/v1"]; ok {
		t.Error("discovery still lists the removed group-version")
	}
	get(t, srv, PathV3+"/apis/stable.example.com/v1", "application/json", http.StatusNotFound)
}

// TestUpdateKeepsDocumentsOnError checks that a bad resource table leaves
// the served documents alone.
func TestUpdateKeepsDocumentsOnError(t *testing.T) {
	srv, svc := serve(t, resource.Builtins())
	if err := svc.Update(append(resource.Builtins(), &resource.Info{Group: "x.example.com"})); err == nil {
		t.Fatal("Update accepted a resource without version, resource and kind")
	}
	if _, ok := v3Discovery(t, srv).Paths["api/v1"]; !ok {
		t.Error("api/v1 is gone after a failed Update")
	}
	if _, err := New([]*resource.Info{nil}); err == nil {
		t.Error("New accepted a nil resource")
	}
}

func v3Discovery(t *testing.T, srv *httptest.Server) handler3.OpenAPIV3Discovery {
	t.Helper()
	_, body := get(t, srv, PathV3, "application/json", http.StatusOK)
	var disc handler3.OpenAPIV3Discovery
	if err := json.Unmarshal(body, &disc); err != nil {
		t.Fatal(err)
	}
	return disc
}

// gvk is one entry of the x-kubernetes-group-version-kind extension.
type gvk struct{ Group, Version, Kind string }

// gvkList reads the extension, which is a single object on operations and
// a list on definitions.
func gvkList(t *testing.T, ext any) []gvk {
	t.Helper()
	b, err := json.Marshal(ext)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(string(b), "{") {
		b = []byte("[" + string(b) + "]")
	}
	var out []gvk
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return out
}

func v3HasKind(t *testing.T, doc *spec3.OpenAPI, want gvk) bool {
	for _, s := range doc.Components.Schemas {
		if contains(gvkList(t, s.Extensions[extGVK]), want) {
			return true
		}
	}
	return false
}

func protoHasGVK(t *testing.T, exts []*openapi_v2.NamedAny, want gvk) bool {
	for _, e := range exts {
		if e.GetName() != extGVK {
			continue
		}
		var got gvk
		if err := yaml.Unmarshal([]byte(e.GetValue().GetYaml()), &got); err != nil {
			t.Fatal(err)
		}
		return got == want
	}
	return false
}

// hasV2Param looks for a parameter, inline or shared (#/parameters/…).
func hasV2Param(doc *spec.Swagger, params []spec.Parameter, name string) bool {
	for _, p := range params {
		if ref := p.Ref.String(); ref != "" {
			p = doc.Parameters[strings.TrimPrefix(ref, "#/parameters/")]
		}
		if p.Name == name {
			return true
		}
	}
	return false
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// TestDocumentsAreStable checks that two Services built from the same table
// list the same hashes, so that registry replicas agree on the URLs clients
// cache, whichever replica answers discovery and whichever the document.
func TestDocumentsAreStable(t *testing.T) {
	a, _ := serve(t, resource.Builtins())
	b, _ := serve(t, resource.Builtins())
	da, db := v3Discovery(t, a), v3Discovery(t, b)
	for name, gv := range da.Paths {
		if db.Paths[name] != gv {
			t.Errorf("%s: %q and %q", name, gv.ServerRelativeURL, db.Paths[name].ServerRelativeURL)
		}
	}
	ra, _ := get(t, a, PathV2, "application/json", http.StatusOK)
	rb, _ := get(t, b, PathV2, "application/json", http.StatusOK)
	if ra.Header.Get("Etag") != rb.Header.Get("Etag") {
		t.Error("the v2 documents differ")
	}
}
