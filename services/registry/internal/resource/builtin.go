package resource

import (
	crdstrategy "k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	csr "k8s.io/kubernetes/pkg/registry/certificates/certificates"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/event"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	nodestrategy "k8s.io/kubernetes/pkg/registry/core/node"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolume"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaimtemplate"
	"k8s.io/kubernetes/pkg/registry/resource/resourceslice"

	"github.com/kubesplit/kubesplit/services/registry/internal/kubetype"
	"github.com/kubesplit/kubesplit/services/registry/internal/printers"
	"github.com/kubesplit/kubesplit/services/registry/internal/validation"
)

// Builtins returns the built-in resources the registry serves, one entry a
// resource, grouped by API group in the builtin_<group>.go files. Adding a
// built-in kind is adding an entry there with kube's strategies for it.
func Builtins() []*Info {
	var all []*Info
	for _, group := range [][]*Info{
		core(), apps(), batch(), autoscaling(), policy(),
		networking(), discovery(), storage(), node(), scheduling(),
		certificates(), flowcontrol(), resourceGroup(), storagemigration(), events(),
		coordination(), rbac(), admissionregistration(), extensions(),
	} {
		all = append(all, group...)
	}
	return all
}

// kube returns info written through kube's own strategy for the object
// and, by name, for its subresources.
func kube(info *Info, object kubetype.Strategy, subresources map[string]rest.RESTUpdateStrategy) *Info {
	info.Strategy = kubetype.New(info.GroupVersionKind(), object, subresources).WithAttrs(kubeAttrs[info.GroupVersionKind().GroupKind()])
	info.Convert = kubetype.Convert
	info.ReturnDeletedObject = returnsDeleted[schema.GroupResource{Group: info.Group, Resource: info.Resource}]
	info.Deprecation = kubetype.Deprecation(info.GroupVersionKind())
	return info
}

// kubeAttrs are kube's selectable-field functions of the kinds that select
// on more than metadata.name and metadata.namespace, by kind (field
// selectors name fields the served version's way; kube converts them).
var kubeAttrs = map[schema.GroupKind]kubetype.Attrs{
	{Kind: "Pod"}:                           pod.GetAttrs,
	{Kind: "Node"}:                          nodestrategy.GetAttrs,
	{Kind: "Event"}:                         event.GetAttrs,
	{Group: "events.k8s.io", Kind: "Event"}: event.GetAttrs,
	{Kind: "Secret"}:                        secret.GetAttrs,
	{Kind: "ConfigMap"}:                     configmap.GetAttrs,
	{Kind: "Namespace"}:                     namespace.GetAttrs,
	{Kind: "Service"}:                       service.GetAttrs,
	{Kind: "PersistentVolume"}:              persistentvolume.GetAttrs,
	{Kind: "PersistentVolumeClaim"}:         persistentvolumeclaim.GetAttrs,
	{Kind: "ReplicationController"}:         replicationcontroller.GetAttrs,
	{Group: "apps", Kind: "ReplicaSet"}:     replicaset.GetAttrs,
	{Group: "batch", Kind: "Job"}:           job.GetAttrs,
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}: csr.GetAttrs,
	{Group: "certificates.k8s.io", Kind: "ClusterTrustBundle"}:        clusterTrustBundleAttrs,
	{Group: "certificates.k8s.io", Kind: "PodCertificateRequest"}:     podCertificateRequestAttrs,
	{Group: "resource.k8s.io", Kind: "ResourceClaim"}:                 resourceclaim.GetAttrs,
	{Group: "resource.k8s.io", Kind: "ResourceClaimTemplate"}:         resourceclaimtemplate.GetAttrs,
	{Group: "resource.k8s.io", Kind: "ResourceSlice"}:                 resourceslice.GetAttrs,
}

// returnsDeleted are the resources whose deletes kube answers with the
// deleted object (its storage's ReturnDeletedObject) instead of a Status.
var returnsDeleted = map[schema.GroupResource]bool{
	{Resource: "namespaces"}: true, {Resource: "pods"}: true, {Resource: "services"}: true,
	{Resource: "serviceaccounts"}: true, {Resource: "resourcequotas"}: true, {Resource: "podtemplates"}: true,
	{Resource: "persistentvolumes"}: true, {Resource: "persistentvolumeclaims"}: true,
	{Group: "storage.k8s.io", Resource: "csidrivers"}: true, {Group: "storage.k8s.io", Resource: "csinodes"}: true,
	{Group: "storage.k8s.io", Resource: "storageclasses"}: true, {Group: "storage.k8s.io", Resource: "volumeattachments"}: true,
	{Group: "storage.k8s.io", Resource: "volumeattributesclasses"}: true,
	{Group: "resource.k8s.io", Resource: "deviceclasses"}:          true, {Group: "resource.k8s.io", Resource: "resourceclaims"}: true,
	{Group: "resource.k8s.io", Resource: "resourceclaimtemplates"}: true, {Group: "resource.k8s.io", Resource: "resourceslices"}: true,
}

// status is the subresource map of a kind whose only subresource strategy
// is its status's.
func status(s rest.RESTUpdateStrategy) map[string]rest.RESTUpdateStrategy {
	return map[string]rest.RESTUpdateStrategy{"status": s}
}

// extensions are the kinds of the API extension groups, whose types live
// outside k8s.io/kubernetes: CRDs through apiextensions-apiserver's own
// strategies, APIServices through the registry's own validation.
func extensions() []*Info {
	return []*Info{
		kube(&Info{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition",
			Singular: "customresourcedefinition", ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"},
			StatusSubresource: true, MarkDeleted: validation.MarkCustomResourceDefinitionDeleted,
			Columns: printers.CustomResourceDefinition},
			crdstrategy.NewStrategy(legacyscheme.Scheme), status(crdstrategy.NewStatusStrategy(legacyscheme.Scheme))),
		{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices", Kind: "APIService", Singular: "apiservice",
			Categories: []string{"api-extensions"}, StatusSubresource: true, ConditionalUpdate: true,
			Default: validation.DefaultAPIService, Validate: validation.ValidateAPIService, Columns: printers.APIService},
	}
}
