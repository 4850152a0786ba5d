package discovery

import (
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/discovery"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	"github.com/kubesplit/kubesplit/services/registry/internal/resource"
)

// storageOverrides are the resources kube-apiserver v1.37 stores at a
// version other than its group's preferred one (the resource overrides of
// k8s.io/kubernetes pkg/kubeapiserver NewStorageFactoryConfig): kube keeps
// them as data in a package that brings its whole server along, so they
// are data here too.
var storageOverrides = []schema.GroupVersionResource{
	{Group: "coordination.k8s.io", Version: "v1beta1", Resource: "leasecandidates"},
	{Group: "certificates.k8s.io", Version: "v1beta1", Resource: "clustertrustbundles"},
	{Group: "certificates.k8s.io", Version: "v1beta1", Resource: "podcertificaterequests"},
	{Group: "storagemigration.k8s.io", Version: "v1beta1", Resource: "storageversionmigrations"},
	{Group: "resource.k8s.io", Version: "v1beta2", Resource: "devicetaintrules"},
	{Group: "resource.k8s.io", Version: "v1alpha3", Resource: "resourcepoolstatusrequests"},
	{Group: "scheduling.k8s.io", Version: "v1beta1", Resource: "workloads"},
	{Group: "scheduling.k8s.io", Version: "v1beta1", Resource: "podgroups"},
	{Group: "scheduling.k8s.io", Version: "v1alpha3", Resource: "compositepodgroups"},
	{Group: "lifecycle.k8s.io", Version: "v1alpha1", Resource: "evictions"},
	{Group: "lifecycle.k8s.io", Version: "v1alpha1", Resource: "evictionrequests"},
	// apiextensions-apiserver's own storage codec keeps CRDs at v1beta1.
	{Group: "apiextensions.k8s.io", Version: "v1beta1", Resource: "customresourcedefinitions"},
}

// encoding decides storage versions as kube-apiserver v1.37's storage
// factory does: an override, else the group's preferred version whose
// kind existed at the previous release (the minimum compatibility
// version), so that a downgrade can still read what is stored.
var encoding = func() *serverstorage.DefaultResourceEncodingConfig {
	c := serverstorage.NewDefaultResourceEncodingConfigForEffectiveVersion(legacyscheme.Scheme,
		basecompatibility.NewEffectiveVersionFromString("1.37", "", ""))
	for _, o := range storageOverrides {
		c.SetResourceEncoding(o.GroupResource(), o.GroupVersion(),
			schema.GroupVersion{Group: o.Group, Version: runtime.APIVersionInternal})
	}
	return c
}()

// hashes memoizes storageVersionHash by resource.
var hashes sync.Map // *resource.Info → string

// storageVersionHash is what discovery lists for a resource: kube's hash
// (k8s.io/apiserver discovery.StorageVersionHash) of the group, version
// and kind objects of the resource are stored as, so that a storage
// version migrator sees the same value a kube-apiserver shows.
func storageVersionHash(info *resource.Info) string {
	if info.StorageVersionHash != "" {
		return info.StorageVersionHash
	}
	if h, ok := hashes.Load(info); ok {
		return h.(string)
	}
	gvk := storageKind(info)
	h := discovery.StorageVersionHash(gvk.Group, gvk.Version, gvk.Kind)
	hashes.Store(info, h)
	return h
}

// storageKind is the group, version and kind a built-in resource's
// objects are stored as. A kind kube's scheme lacks (CRDs, APIServices,
// whose servers have schemes of their own) is stored at the version the
// registry keeps it at.
func storageKind(info *resource.Info) schema.GroupVersionKind {
	gr := schema.GroupResource{Group: info.Group, Resource: info.Resource}
	if info.StoredAs != nil {
		gr = info.StoredAs.GroupResource()
	}
	internal, err := legacyscheme.Scheme.New(schema.GroupVersionKind{Group: gr.Group, Version: runtime.APIVersionInternal, Kind: info.Kind})
	if err != nil {
		return schema.FromAPIVersionAndKind(info.StorageVersion(), info.Kind)
	}
	gv, err := encoding.BackwardCompatibileStorageEncodingFor(gr, internal)
	if err != nil {
		return schema.FromAPIVersionAndKind(info.StorageVersion(), info.Kind)
	}
	return gv.WithKind(info.Kind)
}

// stored tells whether a resource keeps objects, which alone have a
// storage version: what is kept can be watched, while a create-only
// resource such as bindings writes to another's, and componentstatuses
// are probed when read.
func stored(info *resource.Info) bool {
	return info.ServedVerbs == nil || slices.Contains(info.ServedVerbs, "watch")
}
