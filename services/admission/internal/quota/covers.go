package quota

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The group resources with usage beyond an object count.
var (
	podsResource     = schema.GroupResource{Resource: "pods"}
	servicesResource = schema.GroupResource{Resource: "services"}
	pvcsResource     = schema.GroupResource{Resource: "persistentvolumeclaims"}
)

// legacyCounts are the object counts quota names without the count/
// prefix, as it did before count/<resource>.<group> existed.
var legacyCounts = map[corev1.ResourceName]schema.GroupResource{
	corev1.ResourcePods:                   podsResource,
	corev1.ResourceServices:               servicesResource,
	corev1.ResourcePersistentVolumeClaims: pvcsResource,
	corev1.ResourceConfigMaps:             {Resource: "configmaps"},
	corev1.ResourceSecrets:                {Resource: "secrets"},
	corev1.ResourceReplicationControllers: {Resource: "replicationcontrollers"},
	corev1.ResourceQuotas:                 {Resource: "resourcequotas"},
}

// storageClassSuffix ends the per-storage-class PVC resources
// (<class>.storageclass.storage.k8s.io/requests.storage).
const storageClassSuffix = ".storageclass.storage.k8s.io/"

// countPrefix starts the generic object counts.
const countPrefix = "count/"

// groupResourceOf is the resource whose objects a quota resource name
// counts, as kube's evaluators' MatchingResources divide them; false for a
// name no evaluator knows, which quota then ignores.
func groupResourceOf(name corev1.ResourceName) (schema.GroupResource, bool) {
	if gr, ok := legacyCounts[name]; ok {
		return gr, true
	}
	s := string(name)
	switch {
	case strings.HasPrefix(s, countPrefix):
		return countedResource(strings.TrimPrefix(s, countPrefix))
	case name == corev1.ResourceServicesLoadBalancers, name == corev1.ResourceServicesNodePorts:
		return servicesResource, true
	case name == corev1.ResourceRequestsStorage, strings.Contains(s, storageClassSuffix):
		return pvcsResource, true
	case isPodResource(name):
		return podsResource, true
	}
	return schema.GroupResource{}, false
}

// countedResource parses the <resource>.<group> of count/<resource>.<group>;
// a core resource has no group.
func countedResource(s string) (schema.GroupResource, bool) {
	if s == "" {
		return schema.GroupResource{}, false
	}
	resource, group, _ := strings.Cut(s, ".")
	return schema.GroupResource{Group: group, Resource: resource}, true
}

// isPodResource says whether name is one of the compute resources pods are
// charged: cpu, memory, ephemeral storage, hugepages and extended resources,
// as requests.*, limits.* or the bare names kube keeps for cpu and memory.
func isPodResource(name corev1.ResourceName) bool {
	switch name {
	case corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage:
		return true
	}
	s := string(name)
	return strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix) ||
		strings.HasPrefix(s, "limits.") ||
		strings.HasPrefix(s, corev1.ResourceHugePagesPrefix)
}

// countName is the generic object count name of gr's objects.
func countName(gr schema.GroupResource) corev1.ResourceName {
	if gr.Group == "" {
		return corev1.ResourceName(countPrefix + gr.Resource)
	}
	return corev1.ResourceName(countPrefix + gr.Resource + "." + gr.Group)
}

// matchingResources are the names among hard that count gr's objects.
func matchingResources(hard corev1.ResourceList, gr schema.GroupResource) []corev1.ResourceName {
	var out []corev1.ResourceName
	for _, name := range names(hard) {
		if got, ok := groupResourceOf(name); ok && got == gr {
			out = append(out, name)
		}
	}
	return out
}
