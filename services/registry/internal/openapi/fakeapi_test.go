package openapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/kubesplit/kubesplit/pkg/apierror"
	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// fakeAPI is just enough of an API server for kubectl to run against the
// OpenAPI handlers: legacy discovery, /version, and an in-memory store of
// objects that records the requests it gets.
type fakeAPI struct {
	resources []*resource.Info

	mu       sync.Mutex
	objects  map[string][]byte // by item path
	requests []*http.Request
}

// startFakeAPI serves svc's documents and fakeAPI at a fresh local address.
// Without v3 it answers 404 under /openapi/v3, like a server that predates it.
func startFakeAPI(t *testing.T, resources []*resource.Info, withV3 bool) (*httptest.Server, *fakeAPI) {
	t.Helper()
	svc, err := New(resources)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeAPI{resources: resources, objects: map[string][]byte{}}
	mux := http.NewServeMux()
	svc.Register(mux)
	if !withV3 {
		mux = http.NewServeMux()
		mux.Handle(PathV2, svc)
	}
	mux.HandleFunc("/version", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, version.Info{Major: "1", Minor: "33", GitVersion: "v1.33.0"})
	})
	mux.HandleFunc("/api", f.serveAPI)
	mux.HandleFunc("/apis", f.serveAPIs)
	mux.HandleFunc("/api/", f.serveResources)
	mux.HandleFunc("/apis/", f.serveResources)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, f
}

func (f *fakeAPI) serveAPI(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, metav1.APIVersions{
		TypeMeta:                   metav1.TypeMeta{Kind: "APIVersions"},
		Versions:                   []string{"v1"},
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: "127.0.0.1"}},
	})
}

func (f *fakeAPI) serveAPIs(w http.ResponseWriter, _ *http.Request) {
	list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	seen := map[string]bool{}
	for _, r := range f.resources {
		if r.Group == "" || seen[r.Group] {
			continue
		}
		seen[r.Group] = true
		gv := metav1.GroupVersionForDiscovery{GroupVersion: r.APIVersion(), Version: r.Version}
		list.Groups = append(list.Groups, metav1.APIGroup{Name: r.Group, Versions: []metav1.GroupVersionForDiscovery{gv}, PreferredVersion: gv})
	}
	writeJSON(w, http.StatusOK, list)
}

// serveResources answers discovery of a group-version, and otherwise
// stores created objects, returns them, and accepts patches unchanged.
func (f *fakeAPI) serveResources(w http.ResponseWriter, r *http.Request) {
	if list, ok := f.discovery(r.URL.Path); ok {
		writeJSON(w, http.StatusOK, list)
		return
	}
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r)
	switch r.Method {
	case http.MethodPost:
		var obj map[string]any
		if err := json.Unmarshal(body, &obj); err != nil {
			apierror.Write(w, apierrors.NewBadRequest(err.Error()))
			return
		}
		meta, _ := obj["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		meta["resourceVersion"], meta["uid"] = "1", "c0ffee"
		stored, _ := json.Marshal(obj)
		f.objects[r.URL.Path+"/"+name] = stored
		writeRaw(w, http.StatusCreated, stored)
	case http.MethodGet, http.MethodPatch:
		if obj, ok := f.objects[r.URL.Path]; ok {
			writeRaw(w, http.StatusOK, obj)
			return
		}
		apierror.Write(w, apierrors.NewNotFound(schema.GroupResource{}, r.URL.Path))
	default:
		apierror.Write(w, apierrors.NewMethodNotSupported(schema.GroupResource{}, r.Method))
	}
}

// discovery returns the resource list of a group-version path.
func (f *fakeAPI) discovery(path string) (*metav1.APIResourceList, bool) {
	var list *metav1.APIResourceList
	for _, r := range f.resources {
		if rootPath(r.GroupVersion()) != strings.TrimSuffix(path, "/") {
			continue
		}
		if list == nil {
			list = &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: r.APIVersion()}
		}
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name: r.Resource, SingularName: r.Singular, Namespaced: r.Namespaced, Kind: r.Kind,
			Verbs: r.Verbs(), ShortNames: r.ShortNames, Categories: r.Categories,
		})
	}
	return list, list != nil
}

// requestsTo returns the recorded requests with the given method.
func (f *fakeAPI) requestsTo(method string) []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*http.Request
	for _, r := range f.requests {
		if r.Method == method {
			out = append(out, r)
		}
	}
	return out
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, _ := json.Marshal(v)
	writeRaw(w, code, b)
}

func writeRaw(w http.ResponseWriter, code int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}
