package resource

import (
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"

	"github.com/kubesplit/kubesplit/services/registry/internal/printers"
	"github.com/kubesplit/kubesplit/services/registry/internal/validation"
)

// Builtins returns the built-in resources the registry serves, one entry a
// resource. Adding a built-in type is adding an entry here (and its kind to
// the scheme, if k8s.io/api does not already carry it).
func Builtins() []*Info {
	return []*Info{
		// core/v1
		{Version: "v1", Resource: "namespaces", Kind: "Namespace", Singular: "namespace",
			ShortNames: []string{"ns"}, StatusSubresource: true, ValidateName: apivalidation.NameIsDNSLabel, Subresources: []string{"finalize"}, SpecFinalizers: true,
			SelectableFields: []string{"status.phase"},
			Default:          validation.DefaultNamespace, Validate: validation.ValidateNamespace, Columns: printers.Namespace},
		{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Singular: "configmap", Namespaced: true,
			ShortNames: []string{"cm"},
			Validate:   validation.ValidateConfigMap, Columns: printers.ConfigMap},
		{Version: "v1", Resource: "secrets", Kind: "Secret", Singular: "secret", Namespaced: true,
			SelectableFields: []string{"type"},
			Default:          validation.DefaultSecret, Validate: validation.ValidateSecret, Columns: printers.Secret},
		{Version: "v1", Resource: "serviceaccounts", Kind: "ServiceAccount", Singular: "serviceaccount", Namespaced: true,
			ShortNames: []string{"sa"},
			Validate:   validation.ValidateServiceAccount, Columns: printers.ServiceAccount},
		{Version: "v1", Resource: "events", Kind: "Event", Singular: "event", Namespaced: true,
			ShortNames: []string{"ev"},
			SelectableFields: []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
				"involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
				"involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"},
			Validate: validation.ValidateEvent, Columns: printers.Event},
		{Version: "v1", Resource: "pods", Kind: "Pod", Singular: "pod", Namespaced: true,
			ShortNames: []string{"po"}, Categories: []string{"all"}, StatusSubresource: true,
			SelectableFields: []string{"spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
				"spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"},
			Default: validation.DefaultPod, Validate: validation.ValidatePod, Columns: printers.Pod},
		{Version: "v1", Resource: "services", Kind: "Service", Singular: "service", Namespaced: true,
			ShortNames: []string{"svc"}, Categories: []string{"all"}, StatusSubresource: true, ValidateName: apivalidation.NameIsDNS1035Label,
			SelectableFields: []string{"spec.clusterIP", "spec.type"},
			Default:          validation.DefaultService, Validate: validation.ValidateService, Columns: printers.Service},
		{Version: "v1", Resource: "limitranges", Kind: "LimitRange", Singular: "limitrange", Namespaced: true,
			ShortNames: []string{"limits"},
			Default:    validation.DefaultLimitRange, Validate: validation.ValidateLimitRange, Columns: printers.LimitRange},
		{Version: "v1", Resource: "resourcequotas", Kind: "ResourceQuota", Singular: "resourcequota", Namespaced: true,
			ShortNames: []string{"quota"}, StatusSubresource: true,
			Validate: validation.ValidateResourceQuota, Columns: printers.ResourceQuota},

		// apps/v1
		{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Singular: "deployment", Namespaced: true,
			ShortNames: []string{"deploy"}, Categories: []string{"all"}, StatusSubresource: true, Generation: true,
			Scale:   &Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ".spec.selector"},
			Default: validation.DefaultDeployment, Validate: validation.ValidateDeployment, Columns: printers.Deployment},

		// coordination.k8s.io/v1
		{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", Singular: "lease", Namespaced: true,
			Validate: validation.ValidateLease, Columns: printers.Lease},

		// rbac.authorization.k8s.io/v1
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles", Kind: "Role", ValidateName: path.ValidatePathSegmentName, Singular: "role", Namespaced: true,
			Validate: validation.ValidateRole, Columns: printers.Role},
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings", Kind: "RoleBinding", ValidateName: path.ValidatePathSegmentName, Singular: "rolebinding", Namespaced: true,
			Default: validation.DefaultRoleBinding, Validate: validation.ValidateRoleBinding, Columns: printers.RoleBinding},
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles", Kind: "ClusterRole", ValidateName: path.ValidatePathSegmentName, Singular: "clusterrole",
			Validate: validation.ValidateClusterRole, Columns: printers.ClusterRole},
		{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings", Kind: "ClusterRoleBinding", ValidateName: path.ValidatePathSegmentName, Singular: "clusterrolebinding",
			Default: validation.DefaultClusterRoleBinding, Validate: validation.ValidateClusterRoleBinding, Columns: printers.ClusterRoleBinding},

		// apiextensions.k8s.io/v1
		{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition",
			Singular: "customresourcedefinition", ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"},
			StatusSubresource: true, Generation: true,
			Default: validation.DefaultCustomResourceDefinition, Validate: validation.ValidateCustomResourceDefinition,
			MarkDeleted: validation.MarkCustomResourceDefinitionDeleted,
			Columns:     printers.CustomResourceDefinition},

		// apiregistration.k8s.io/v1
		{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices", Kind: "APIService", Singular: "apiservice",
			Categories: []string{"api-extensions"}, StatusSubresource: true, ConditionalUpdate: true,
			Default: validation.DefaultAPIService, Validate: validation.ValidateAPIService, Columns: printers.APIService},

		// admissionregistration.k8s.io/v1
		{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations",
			Kind: "MutatingWebhookConfiguration", Singular: "mutatingwebhookconfiguration", Categories: []string{"api-extensions"},
			Default:  validation.DefaultMutatingWebhookConfiguration,
			Validate: validation.ValidateMutatingWebhookConfiguration, Columns: printers.MutatingWebhookConfiguration},
		{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations",
			Kind: "ValidatingWebhookConfiguration", Singular: "validatingwebhookconfiguration", Categories: []string{"api-extensions"},
			Default:  validation.DefaultValidatingWebhookConfiguration,
			Validate: validation.ValidateValidatingWebhookConfiguration, Columns: printers.ValidatingWebhookConfiguration},
		{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies",
			Kind: "ValidatingAdmissionPolicy", Singular: "validatingadmissionpolicy", Categories: []string{"api-extensions"},
			StatusSubresource: true, Generation: true,
			Default:  validation.DefaultValidatingAdmissionPolicy,
			Validate: validation.ValidateValidatingAdmissionPolicy, Columns: printers.ValidatingAdmissionPolicy},
		{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings",
			Kind: "ValidatingAdmissionPolicyBinding", Singular: "validatingadmissionpolicybinding", Categories: []string{"api-extensions"},
			Generation: true,
			Default:    validation.DefaultValidatingAdmissionPolicyBinding,
			Validate:   validation.ValidateValidatingAdmissionPolicyBinding, Columns: printers.ValidatingAdmissionPolicyBinding},
	}
}
