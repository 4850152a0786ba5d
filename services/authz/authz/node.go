package authz

import (
	"context"
	"fmt"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	certsinformers "k8s.io/client-go/informers/certificates/v1"
	resourceinformers "k8s.io/client-go/informers/resource/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubernetes/pkg/auth/nodeidentifier"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/node"
	"k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"

	"github.com/kubesplit/kubesplit/pkg/apiwait"
	"github.com/kubesplit/kubesplit/pkg/authz"
	"github.com/kubesplit/kubesplit/pkg/health"
	"github.com/kubesplit/kubesplit/services/authz/internal/kubeauthz"
)

// newNodeMode is kube's Node authorizer: kubelets (user system:node:<name>
// in group system:nodes) may read the secrets, configmaps, volumes and
// claims of the pods bound to their node, and use kube's static node
// rules, nothing else; anyone else gets NoOpinion. Its graph of
// node <- pod <- secret… is kept by kube's own populator from informers
// on the API, as kube-apiserver keeps it. The graph's changes are part of
// the policy: a pod leaving a node must end the node's cached allows, so
// every change it takes moves the revision (see nodeRevisions).
func newNodeMode(ctx context.Context, cfg Config, revs *policyRevisions) (mode, error) {
	if cfg.RESTConfig == nil {
		return mode{}, fmt.Errorf("%w: the Node mode needs a way to reach the API (a kubeconfig)", ErrInvalidConfig)
	}
	client, factory, err := newInformerFactory(cfg)
	if err != nil {
		return mode{}, err
	}
	a, w := startNodeAuthorizer(ctx, client, factory, revs.source())
	return mode{
		authorizer: a,
		checks:     []health.Check{{Name: "node-graph-synced", Func: w.ready}},
		rules:      listedRules(a),
	}, nil
}

// startNodeAuthorizer builds kube's Node authorizer over a graph that
// kube's populator keeps from factory's informers, and starts them once
// the API answers through client.
func startNodeAuthorizer(ctx context.Context, client kubernetes.Interface, factory informers.SharedInformerFactory, source revisionSource) (authz.Authorizer, *nodeRevisions) {
	w := &nodeRevisions{source: source}
	var slices resourceinformers.ResourceSliceInformer
	if utilfeature.DefaultFeatureGate.Enabled(features.DynamicResourceAllocation) {
		slices = sliceInformer{factory.Resource().V1().ResourceSlices(), w}
	}
	var pcrs certsinformers.PodCertificateRequestInformer
	if utilfeature.DefaultFeatureGate.Enabled(features.PodCertificateRequest) {
		pcrs = pcrInformer{factory.Certificates().V1().PodCertificateRequests(), w}
	}
	graph := node.NewGraph()
	node.AddGraphEventHandlers(graph,
		nodeInformer{factory.Core().V1().Nodes(), w},
		podInformer{factory.Core().V1().Pods(), w},
		pvInformer{factory.Core().V1().PersistentVolumes(), w},
		attachmentInformer{factory.Storage().V1().VolumeAttachments(), w},
		slices, pcrs)
	authorizer := node.NewAuthorizer(graph, nodeidentifier.NewDefaultNodeIdentifier(), bootstrappolicy.NodeRules())
	apiwait.Start(ctx, client, factory.Start)
	return kubeauthz.Adapt(authorizer), w
}
