package openapi

import (
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// Definitions of the meta types every operation refers to.
const (
	defStatus        model = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
	defDeleteOptions model = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
	defWatchEvent    model = "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"
	defPatch         model = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
	defScale         model = "io.k8s.api.autoscaling.v1.Scale"
	defObjectMeta    model = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
	defListMeta      model = "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"
)

// definitionName is the name of a kind's definition: its Go type's model
// name for a kind the binary compiles in (io.k8s.api.core.v1.Pod), and
// otherwise the name kube gives custom resources, the reversed group, the
// version and the kind (com.example.stable.v1.CronTab). typed reports which.
func definitionName(gvk schema.GroupVersionKind) (name model, typed bool) {
	if resource.Scheme.Recognizes(gvk) {
		if n, err := resource.Scheme.ToOpenAPIDefinitionName(gvk); err == nil {
			return model(n), true
		}
	}
	return model(resource.CustomDefinitionName(gvk)), false
}

// kinds records which group-version-kinds each definition is, for the
// x-kubernetes-group-version-kind extension clients look schemas up by.
type kinds map[model][]metav1.GroupVersionKind

func (k kinds) add(name model, gvk schema.GroupVersionKind) {
	g := metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}
	for _, have := range k[name] {
		if have == g {
			return
		}
	}
	k[name] = append(k[name], g)
}

// newKinds indexes the kinds of the resources and their lists, Status and
// autoscaling/v1 Scale (named wherever their definitions appear, as kube
// names them), and the WatchEvent and DeleteOptions kinds that every
// group-version carries. Those two are recorded only for metaGVs: kube
// registers them in every group, but lists only the document's own
// group-version (and v1) in a v3 document, so the extension does not grow
// with the number of groups.
func newKinds(resources []*resource.Info, metaGVs []schema.GroupVersion) kinds {
	k := kinds{}
	k.add(defStatus, schema.GroupVersionKind{Version: "v1", Kind: "Status"})
	k.add(defScale, schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"})
	for _, gv := range metaGVs {
		k.add(defWatchEvent, gv.WithKind("WatchEvent"))
		k.add(defDeleteOptions, gv.WithKind("DeleteOptions"))
	}
	for _, r := range resources {
		kind, _ := definitionName(r.GroupVersionKind())
		k.add(kind, r.GroupVersionKind())
		list, _ := definitionName(r.GroupVersion().WithKind(r.ListKind()))
		k.add(list, r.GroupVersion().WithKind(r.ListKind()))
	}
	for _, gvks := range k {
		sort.Slice(gvks, func(i, j int) bool {
			a, b := gvks[i], gvks[j]
			if a.Group != b.Group {
				return a.Group < b.Group
			}
			if a.Version != b.Version {
				return a.Version < b.Version
			}
			return a.Kind < b.Kind
		})
	}
	return k
}

// definitionNamer is the builders' GetDefinitionName hook: names stay as
// they are, and kinds get their group-version-kind extension.
func (k kinds) definitionNamer(name string) (string, spec.Extensions) {
	gvks := k[model(name)]
	if len(gvks) == 0 {
		return name, nil
	}
	list := make([]any, 0, len(gvks))
	for _, g := range gvks {
		list = append(list, map[string]any{"group": g.Group, "version": g.Version, "kind": g.Kind})
	}
	return name, spec.Extensions{extGVK: list}
}
