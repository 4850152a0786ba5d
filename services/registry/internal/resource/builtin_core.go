package resource

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/endpoint"
	"k8s.io/kubernetes/pkg/registry/core/event"
	"k8s.io/kubernetes/pkg/registry/core/limitrange"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	nodes "k8s.io/kubernetes/pkg/registry/core/node"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolume"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/resourcequota"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"

	"github.com/kubesplit/kubesplit/services/registry/internal/kubetype"
)

// proxyVerbs are the verbs kube's discovery lists for the proxy
// subresources, which take every HTTP method.
var proxyVerbs = []string{"create", "delete", "get", "patch", "update"}

// core is the legacy group, served at /api/v1.
func core() []*Info {
	return []*Info{
		kube(&Info{Version: "v1", Resource: "namespaces", Kind: "Namespace", Singular: "namespace",
			ShortNames: []string{"ns"}, StatusSubresource: true, Subresources: []string{"finalize"}, SpecFinalizers: true,
			// kube deletes namespaces one by one: no deletecollection.
			ServedVerbs: []string{"create", "delete", "get", "list", "patch", "update", "watch"}},
			namespace.Strategy, map[string]rest.RESTUpdateStrategy{"status": namespace.StatusStrategy, "finalize": namespace.FinalizeStrategy}),
		kube(&Info{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Singular: "configmap", Namespaced: true,
			ShortNames: []string{"cm"}},
			configmap.Strategy, nil),
		kube(&Info{Version: "v1", Resource: "secrets", Kind: "Secret", Singular: "secret", Namespaced: true},
			secret.Strategy, nil),
		kube(&Info{Version: "v1", Resource: "serviceaccounts", Kind: "ServiceAccount", Singular: "serviceaccount", Namespaced: true,
			ShortNames: []string{"sa"},
			// The aggregator routes token requests to authn, which issues them.
			Actions: []Action{{Name: "token", Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest", Verbs: []string{"create"}}}},
			serviceaccount.Strategy, nil),
		kube(&Info{Version: "v1", Resource: "events", Kind: "Event", Singular: "event", Namespaced: true,
			ShortNames: []string{"ev"}},
			event.Strategy, nil),
		kube(&Info{Version: "v1", Resource: "pods", Kind: "Pod", Singular: "pod", Namespaced: true,
			ShortNames: []string{"po"}, Categories: []string{"all"}, StatusSubresource: true,
			Subresources: []string{"ephemeralcontainers", "resize"},
			Actions: []Action{
				{Name: "binding", Kind: "Binding", Verbs: []string{"create"}},
				{Name: "eviction", Group: "policy", Version: "v1", Kind: "Eviction", Verbs: []string{"create"}},
				// Served by package connect, through the pod's kubelet.
				{Name: "attach", Kind: "PodAttachOptions", Verbs: []string{"create", "get"}},
				{Name: "exec", Kind: "PodExecOptions", Verbs: []string{"create", "get"}},
				{Name: "log", Kind: "Pod", Verbs: []string{"get"}},
				{Name: "portforward", Kind: "PodPortForwardOptions", Verbs: []string{"create", "get"}},
				{Name: "proxy", Kind: "PodProxyOptions", Verbs: proxyVerbs},
			}},
			pod.Strategy, map[string]rest.RESTUpdateStrategy{"status": pod.StatusStrategy,
				"ephemeralcontainers": pod.EphemeralContainersStrategy, "resize": pod.ResizeStrategy}),
		// bindings only takes a Binding naming its pod, as a scheduler posts.
		{Version: "v1", Resource: "bindings", Kind: "Binding", Singular: "binding", Namespaced: true,
			ServedVerbs: []string{"create"}},
		kube(&Info{Version: "v1", Resource: "services", Kind: "Service", Singular: "service", Namespaced: true,
			ShortNames: []string{"svc"}, Categories: []string{"all"}, StatusSubresource: true,
			// Served by package connect, to one of the service's pods.
			Actions: []Action{{Name: "proxy", Kind: "ServiceProxyOptions", Verbs: proxyVerbs}}},
			service.Strategy, status(service.StatusStrategy)),
		// componentstatuses are not stored but probed when read (etcd, and a
		// scheduler and controller-manager on the registry's host), as kube
		// does.
		{Version: "v1", Resource: "componentstatuses", Kind: "ComponentStatus", Singular: "componentstatus",
			ShortNames: []string{"cs"}, ServedVerbs: []string{"get", "list"},
			Deprecation: kubetype.Deprecation(schema.GroupVersionKind{Version: "v1", Kind: "ComponentStatus"})},
		kube(&Info{Version: "v1", Resource: "limitranges", Kind: "LimitRange", Singular: "limitrange", Namespaced: true,
			ShortNames: []string{"limits"}},
			limitrange.Strategy, nil),
		kube(&Info{Version: "v1", Resource: "resourcequotas", Kind: "ResourceQuota", Singular: "resourcequota", Namespaced: true,
			ShortNames: []string{"quota"}, StatusSubresource: true},
			resourcequota.Strategy, status(resourcequota.StatusStrategy)),
		// Nodes take status on create too (the kubelet registers with it);
		// kube's node strategy keeps it. nodes/proxy reaches the kubelet.
		kube(&Info{Version: "v1", Resource: "nodes", Kind: "Node", Singular: "node",
			ShortNames: []string{"no"}, StatusSubresource: true,
			Actions: []Action{{Name: "proxy", Kind: "NodeProxyOptions", Verbs: proxyVerbs}}},
			nodes.Strategy, status(nodes.StatusStrategy)),
		kube(&Info{Version: "v1", Resource: "persistentvolumes", Kind: "PersistentVolume", Singular: "persistentvolume",
			ShortNames: []string{"pv"}, StatusSubresource: true},
			persistentvolume.Strategy, status(persistentvolume.StatusStrategy)),
		kube(&Info{Version: "v1", Resource: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Singular: "persistentvolumeclaim",
			Namespaced: true, ShortNames: []string{"pvc"}, StatusSubresource: true},
			persistentvolumeclaim.Strategy, status(persistentvolumeclaim.StatusStrategy)),
		// Endpoints are deprecated since 1.33 (discovery.k8s.io/v1
		// EndpointSlice replaces them); kube's singular is "endpoints".
		kube(&Info{Version: "v1", Resource: "endpoints", Kind: "Endpoints", Singular: "endpoints", Namespaced: true,
			ShortNames: []string{"ep"}},
			endpoint.Strategy, nil),
		kube(&Info{Version: "v1", Resource: "podtemplates", Kind: "PodTemplate", Singular: "podtemplate", Namespaced: true},
			podtemplate.Strategy, nil),
		kube(&Info{Version: "v1", Resource: "replicationcontrollers", Kind: "ReplicationController", Singular: "replicationcontroller",
			Namespaced: true, ShortNames: []string{"rc"}, Categories: []string{"all"}, StatusSubresource: true,
			Scale: &Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector"}},
			replicationcontroller.Strategy, status(replicationcontroller.StatusStrategy)),
	}
}
