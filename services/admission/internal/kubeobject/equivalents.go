package kubeobject

import (
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubeadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/client-go/discovery"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// retryEvery is how soon a failed read of discovery is tried again.
const retryEvery = time.Second

// Equivalents is kube's EquivalentResourceMapper, which matchPolicy
// Equivalent consults, read from the API's discovery: resources are
// equivalent when they are stored as one, which discovery says by giving
// them one storageVersionHash (every version of a resource; core and
// events.k8s.io Events), and else when they share group and name, the
// mapper's own default. Only kinds kube's scheme can convert are listed,
// since a policy matched through an equivalent sees the object converted
// to it; a custom resource matches its own version only. Built-in
// resources do not change while the API runs, so discovery is read once,
// when first needed.
type Equivalents struct {
	discovery discovery.ServerResourcesInterface

	mu       sync.Mutex
	loaded   bool
	failedAt time.Time
	// byKey holds, by storage identity and subresource, the equivalent
	// resources; keys is each resource's identity; kinds the kind of each
	// resource and subresource.
	byKey map[string]map[string][]schema.GroupVersionResource
	keys  map[schema.GroupResource]string
	kinds map[schema.GroupVersionResource]map[string]schema.GroupVersionKind
}

var _ runtime.EquivalentResourceMapper = (*Equivalents)(nil)

// NewEquivalents are the equivalent resources d's discovery says. A
// client-go discovery client is made to read the legacy documents, one
// per group version: aggregated discovery, which it prefers, carries no
// storageVersionHash.
func NewEquivalents(d discovery.ServerResourcesInterface) *Equivalents {
	if dc, ok := d.(*discovery.DiscoveryClient); ok {
		legacy := *dc
		legacy.UseLegacyDiscovery = true
		d = &legacy
	}
	return &Equivalents{discovery: d}
}

// ObjectInterfacesWith are kube's scheme's helpers, as kube hands them to
// a plugin, whose equivalent resources m says.
func ObjectInterfacesWith(m runtime.EquivalentResourceMapper) kubeadmission.ObjectInterfaces {
	s := legacyscheme.Scheme
	return &kubeadmission.RuntimeObjectInterfaces{ObjectCreater: s, ObjectTyper: s, ObjectDefaulter: s, ObjectConvertor: s,
		EquivalentResourceMapper: m}
}

// EquivalentResourcesFor implements runtime.EquivalentResourceMapper.
func (e *Equivalents) EquivalentResourcesFor(resource schema.GroupVersionResource, subresource string) []schema.GroupVersionResource {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.load()
	return e.byKey[e.keys[resource.GroupResource()]][subresource]
}

// KindFor implements runtime.EquivalentResourceMapper.
func (e *Equivalents) KindFor(resource schema.GroupVersionResource, subresource string) schema.GroupVersionKind {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.load()
	return e.kinds[resource][subresource]
}

// load reads discovery unless it has been read, or failed under a second
// ago. What a partial failure leaves out (an aggregated API that is down)
// is not built in, so what was read is kept. Callers hold e.mu.
func (e *Equivalents) load() {
	if e.loaded || time.Since(e.failedAt) < retryEvery {
		return
	}
	_, lists, err := e.discovery.ServerGroupsAndResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		e.failedAt = time.Now()
		return
	}
	e.byKey = map[string]map[string][]schema.GroupVersionResource{}
	e.keys = map[schema.GroupResource]string{}
	e.kinds = map[schema.GroupVersionResource]map[string]schema.GroupVersionKind{}
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		e.addList(gv, list.APIResources)
	}
	e.loaded = true
}

// addList records one group-version's resources, each main resource
// before its subresources, which take its identity.
func (e *Equivalents) addList(gv schema.GroupVersion, resources []metav1.APIResource) {
	for _, main := range []bool{true, false} {
		for _, r := range resources {
			name, sub, _ := strings.Cut(r.Name, "/")
			if (sub == "") != main {
				continue
			}
			gvr := gv.WithResource(name)
			kind := gv.WithKind(r.Kind)
			if r.Group != "" || r.Version != "" {
				kind = schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
			}
			if main {
				if !legacyscheme.Scheme.Recognizes(kind) {
					continue
				}
				key := r.StorageVersionHash
				if key == "" {
					key = gvr.GroupResource().String()
				}
				e.keys[gvr.GroupResource()] = key
			}
			key, ok := e.keys[gvr.GroupResource()]
			if !ok {
				continue
			}
			e.add(key, gvr, sub, kind)
		}
	}
}

func (e *Equivalents) add(key string, gvr schema.GroupVersionResource, sub string, kind schema.GroupVersionKind) {
	if e.byKey[key] == nil {
		e.byKey[key] = map[string][]schema.GroupVersionResource{}
	}
	e.byKey[key][sub] = append(e.byKey[key][sub], gvr)
	if e.kinds[gvr] == nil {
		e.kinds[gvr] = map[string]schema.GroupVersionKind{}
	}
	e.kinds[gvr][sub] = kind
}
