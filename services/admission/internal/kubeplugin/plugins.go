package kubeplugin

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/kubernetes/plugin/pkg/admission/alwayspullimages"
	certapproval "k8s.io/kubernetes/plugin/pkg/admission/certificates/approval"
	"k8s.io/kubernetes/plugin/pkg/admission/certificates/ctbattest"
	certsigning "k8s.io/kubernetes/plugin/pkg/admission/certificates/signing"
	certsubjectrestriction "k8s.io/kubernetes/plugin/pkg/admission/certificates/subjectrestriction"
	"k8s.io/kubernetes/plugin/pkg/admission/defaulttolerationseconds"
	"k8s.io/kubernetes/plugin/pkg/admission/network/defaultingressclass"
	"k8s.io/kubernetes/plugin/pkg/admission/nodedeclaredfeatures"
	"k8s.io/kubernetes/plugin/pkg/admission/noderestriction"
	"k8s.io/kubernetes/plugin/pkg/admission/nodetaint"
	"k8s.io/kubernetes/plugin/pkg/admission/podresize"
	"k8s.io/kubernetes/plugin/pkg/admission/podtopologylabels"
	"k8s.io/kubernetes/plugin/pkg/admission/priority"
	"k8s.io/kubernetes/plugin/pkg/admission/runtimeclass"
	"k8s.io/kubernetes/plugin/pkg/admission/scheduling/podgroupprotection"
	"k8s.io/kubernetes/plugin/pkg/admission/security/podsecurity"
	"k8s.io/kubernetes/plugin/pkg/admission/storage/persistentvolume/resize"
	"k8s.io/kubernetes/plugin/pkg/admission/storage/storageclass/setdefault"
	"k8s.io/kubernetes/plugin/pkg/admission/storage/storageobjectinuseprotection"

	"github.com/kubesplit/kubesplit/pkg/admission"
	"github.com/kubesplit/kubesplit/services/admission/internal/plugin"
)

// The operations, as rules name them.
const (
	create = admissionregistrationv1.Create
	update = admissionregistrationv1.Update
	del    = admissionregistrationv1.Delete
)

// rule is plugin.Rule under a shorter name, for the table below.
var rule = plugin.Rule

// kube's plugins, each with the requests its code acts on (the resources
// and operations its Admit and Validate check for before doing anything).
var (
	// NodeRestriction limits what a kubelet (a system:node:<name> user)
	// may write to its own node and the pods bound to it. Off by default.
	NodeRestriction = Plugin{Name: noderestriction.PluginName, register: noderestriction.Register,
		mutating: []admission.Rule{
			rule("", []string{"pods", "pods/*", "nodes", "nodes/*", "persistentvolumeclaims/status", "serviceaccounts/token"}, create, update, del),
			rule("coordination.k8s.io", []string{"leases"}, create, update, del),
			rule("storage.k8s.io", []string{"csinodes"}, create, update, del),
			rule("resource.k8s.io", []string{"resourceslices"}, create, update, del),
			rule("certificates.k8s.io", []string{"certificatesigningrequests", "podcertificaterequests"}, create, update, del),
		}}
	// TaintNodesByCondition taints a new node not-ready until its
	// kubelet reports otherwise.
	TaintNodesByCondition = Plugin{Name: nodetaint.PluginName, register: nodetaint.Register,
		mutating: []admission.Rule{rule("", []string{"nodes"}, create)}}
	// AlwaysPullImages sets every container's imagePullPolicy to Always.
	// Off by default.
	AlwaysPullImages = Plugin{Name: alwayspullimages.PluginName, register: alwayspullimages.Register,
		mutating:   []admission.Rule{rule("", []string{"pods"}, create, update)},
		validating: []admission.Rule{rule("", []string{"pods"}, create, update)}}
	// PodSecurity enforces, audits and warns about the Pod Security
	// Standards its namespace's pod-security.kubernetes.io labels name.
	PodSecurity = Plugin{Name: podsecurity.PluginName, register: podsecurity.Register,
		validating: []admission.Rule{
			rule("", []string{"pods", "pods/ephemeralcontainers", "namespaces", "replicationcontrollers", "podtemplates"}, create, update),
			rule("apps", []string{"replicasets", "deployments", "statefulsets", "daemonsets"}, create, update),
			rule("batch", []string{"jobs", "cronjobs"}, create, update),
		}}
	// Priority resolves a pod's priority from its PriorityClass and
	// guards the PriorityClasses.
	Priority = Plugin{Name: priority.PluginName, register: priority.Register,
		mutating: []admission.Rule{
			rule("", []string{"pods"}, create, update),
			rule("scheduling.k8s.io", []string{"podgroups", "compositepodgroups"}, create),
		},
		validating: []admission.Rule{rule("scheduling.k8s.io", []string{"priorityclasses"}, create, update)}}
	// DefaultTolerationSeconds gives pods tolerations of their node
	// becoming not-ready or unreachable (see SetTolerationSeconds).
	DefaultTolerationSeconds = Plugin{Name: defaulttolerationseconds.PluginName, register: defaulttolerationseconds.Register,
		mutating: []admission.Rule{rule("", []string{"pods"}, create, update)}}
	// DefaultStorageClass gives a claim without storageClassName the
	// default StorageClass.
	DefaultStorageClass = Plugin{Name: setdefault.PluginName, register: setdefault.Register,
		mutating: []admission.Rule{rule("", []string{"persistentvolumeclaims"}, create)}}
	// StorageObjectInUseProtection adds the finalizers that keep volumes,
	// claims and VolumeAttributesClasses while in use.
	StorageObjectInUseProtection = Plugin{Name: storageobjectinuseprotection.PluginName, register: storageobjectinuseprotection.Register,
		mutating: []admission.Rule{
			rule("", []string{"persistentvolumes", "persistentvolumeclaims"}, create),
			rule("storage.k8s.io", []string{"volumeattributesclasses"}, create),
		}}
	// PodGroupProtection adds the finalizer that keeps a PodGroup while
	// its pods run (with the GenericWorkload feature).
	PodGroupProtection = Plugin{Name: podgroupprotection.PluginName, register: podgroupprotection.Register,
		mutating: []admission.Rule{rule("scheduling.k8s.io", []string{"podgroups"}, create)}}
	// PersistentVolumeClaimResize lets a claim grow only where its
	// StorageClass allows expansion.
	PersistentVolumeClaimResize = Plugin{Name: resize.PluginName, register: resize.Register,
		validating: []admission.Rule{rule("", []string{"persistentvolumeclaims"}, update)}}
	// RuntimeClass sets a pod's overhead from its RuntimeClass and checks
	// its node selector and tolerations against it.
	RuntimeClass = Plugin{Name: runtimeclass.PluginName, register: runtimeclass.Register,
		mutating:   []admission.Rule{rule("", []string{"pods"}, create)},
		validating: []admission.Rule{rule("", []string{"pods"}, create)}}
	// CertificateApproval lets only those allowed to approve for a
	// signer approve its CertificateSigningRequests.
	CertificateApproval = Plugin{Name: certapproval.PluginName, register: certapproval.Register,
		validating: []admission.Rule{rule("certificates.k8s.io", []string{"certificatesigningrequests/approval"}, update)}}
	// CertificateSigning lets only those allowed to sign for a signer set
	// its certificates.
	CertificateSigning = Plugin{Name: certsigning.PluginName, register: certsigning.Register,
		validating: []admission.Rule{rule("certificates.k8s.io", []string{"certificatesigningrequests/status"}, update)}}
	// ClusterTrustBundleAttest lets only those allowed to attest for a
	// signer write its ClusterTrustBundles.
	ClusterTrustBundleAttest = Plugin{Name: ctbattest.PluginName, register: ctbattest.Register,
		validating: []admission.Rule{rule("certificates.k8s.io", []string{"clustertrustbundles"}, create, update)}}
	// CertificateSubjectRestriction refuses requests for certificates in
	// the system:masters group from the kube-apiserver-client signer.
	CertificateSubjectRestriction = Plugin{Name: certsubjectrestriction.PluginName, register: certsubjectrestriction.Register,
		validating: []admission.Rule{rule("certificates.k8s.io", []string{"certificatesigningrequests"}, create)}}
	// DefaultIngressClass gives an Ingress without ingressClassName the
	// default IngressClass.
	DefaultIngressClass = Plugin{Name: defaultingressclass.PluginName, register: defaultingressclass.Register,
		mutating: []admission.Rule{rule("networking.k8s.io", []string{"ingresses"}, create)}}
	// PodTopologyLabels copies its node's topology labels to a pod when
	// it is bound (with the PodTopologyLabelsAdmission feature).
	PodTopologyLabels = Plugin{Name: podtopologylabels.PluginName, register: podtopologylabels.Register,
		mutating: []admission.Rule{rule("", []string{"pods", "pods/binding"}, create)}}
	// NodeDeclaredFeatureValidator refuses a change to a bound pod that
	// its node does not declare the features for (with the
	// NodeDeclaredFeatures feature).
	NodeDeclaredFeatureValidator = Plugin{Name: nodedeclaredfeatures.PluginName, register: nodedeclaredfeatures.Register,
		validating: []admission.Rule{
			rule("", []string{"pods", "pods/resize"}, update),
			rule("resource.k8s.io", []string{"resourceslices"}, create, update),
		}}
	// PodResizeValidator checks an in-place resize of a pod's resources
	// against what its node allows.
	PodResizeValidator = Plugin{Name: podresize.PluginName, register: podresize.Register,
		validating: []admission.Rule{rule("", []string{"pods/resize"}, update)}}
)
