package handler

import (
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// builtinTypes gives server-side apply the schemas of the built-in kinds,
// published with client-go.
var builtinTypes = applyconfigurations.NewTypeConverter(resource.Scheme)

// fieldManagers holds one managedFields tracker per resource and
// subresource, built on first use.
type fieldManagers struct {
	mu sync.Mutex
	m  map[fieldManagerKey]*managedfields.FieldManager
}

type fieldManagerKey struct {
	gvr         schema.GroupVersionResource
	subresource string
}

// get returns the tracker for a resource's subresource ("" for the main
// resource). Objects are always unstructured here, so the CRD flavour of
// the manager is used for every kind, with the built-in schemas where the
// kind has one.
func (f *fieldManagers) get(info *resource.Info, subresource string) (*managedfields.FieldManager, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := fieldManagerKey{info.GroupVersionResource(), subresource}
	if fm, ok := f.m[key]; ok {
		return fm, nil
	}
	tc, err := typeConverter(info)
	if err != nil {
		return nil, err
	}
	fm, err := managedfields.NewDefaultCRDFieldManager(tc, sameVersion{}, defaulter{info}, creater{},
		info.GroupVersionKind(), info.GroupVersion(), subresource, resetFields(info, subresource))
	if err != nil {
		return nil, err
	}
	if f.m == nil {
		f.m = map[fieldManagerKey]*managedfields.FieldManager{}
	}
	f.m[key] = fm
	return fm, nil
}

// typeConverter is how server-side apply sees a kind's fields: a custom
// resource's own (kube's, from its CRD), the built-in schemas, or, for
// kinds with neither, fields deduced from the object (lists atomic).
func typeConverter(info *resource.Info) (managedfields.TypeConverter, error) {
	switch {
	case info.ApplyTypes != nil:
		return info.ApplyTypes, nil
	case hasBuiltinSchema(info):
		return builtinTypes, nil
	}
	return managedfields.NewDeducedTypeConverter(), nil
}

// hasBuiltinSchema reports whether client-go publishes a schema for the
// kind: custom resources have none, nor do some compiled-in kinds
// (CustomResourceDefinition, APIService), which are then tracked as
// custom resources are.
func hasBuiltinSchema(info *resource.Info) bool {
	if _, ok := resource.Typed(info.GroupVersionKind()); !ok {
		return false
	}
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(info.GroupVersionKind())
	_, err := builtinTypes.ObjectToTyped(u)
	return err == nil
}

// resetFields are the fields a write to a subresource does not own: the
// main resource does not set status, and the status subresource sets
// nothing else.
func resetFields(info *resource.Info, subresource string) map[fieldpath.APIVersion]fieldpath.Filter {
	if !info.StatusSubresource {
		return nil
	}
	var set *fieldpath.Set
	if subresource == "status" {
		set = fieldpath.NewSet(fieldpath.MakePathOrDie("spec"), fieldpath.MakePathOrDie("metadata"))
	} else {
		set = fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
	}
	return map[fieldpath.APIVersion]fieldpath.Filter{
		fieldpath.APIVersion(info.APIVersion()): fieldpath.NewExcludeSetFilter(set),
	}
}

// managerName is the field manager of a write: ?fieldManager, or as kube
// does, the User-Agent up to its first slash.
func managerName(fieldManager, userAgent string) string {
	if fieldManager != "" {
		return fieldManager
	}
	name, _, _ := strings.Cut(userAgent, "/")
	if len(name) > 128 {
		name = name[:128]
	}
	return name
}

// sameVersion converts nothing: every resource is served at one version.
type sameVersion struct{}

func (sameVersion) Convert(in, out, context any) error {
	u, ok := out.(*unstructured.Unstructured)
	if !ok {
		return runtime.NewNotRegisteredErrForType("kubesplit", nil)
	}
	u.Object = in.(*unstructured.Unstructured).Object
	return nil
}

func (sameVersion) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}

func (sameVersion) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

// defaulter applies a resource's defaults to an unstructured object.
type defaulter struct{ info *resource.Info }

func (d defaulter) Default(obj runtime.Object) {
	u, ok := obj.(*unstructured.Unstructured)
	switch {
	case !ok:
	case d.info.Strategy != nil:
		d.info.Strategy.Default(u)
	case d.info.Default != nil:
		d.info.Default(u)
	}
}

// creater makes empty unstructured objects of any kind.
type creater struct{}

func (creater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gvk)
	return u, nil
}
