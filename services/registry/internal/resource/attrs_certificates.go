package resource

import (
	"fmt"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	api "k8s.io/kubernetes/pkg/apis/certificates"
)

// clusterTrustBundleAttrs and podCertificateRequestAttrs are the selectable
// fields kube gives these kinds in their storage packages (unexported
// there, so written out here).
func clusterTrustBundleAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	b, ok := obj.(*api.ClusterTrustBundle)
	if !ok {
		return nil, nil, fmt.Errorf("not a clustertrustbundle")
	}
	return labels.Set(b.Labels), fields.Set{"metadata.name": b.Name, "spec.signerName": b.Spec.SignerName}, nil
}

func podCertificateRequestAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	r, ok := obj.(*api.PodCertificateRequest)
	if !ok {
		return nil, nil, fmt.Errorf("not a podcertificaterequest")
	}
	return labels.Set(r.Labels), fields.Set{"metadata.name": r.Name, "metadata.namespace": r.Namespace,
		"spec.signerName": r.Spec.SignerName, "spec.podName": r.Spec.PodName, "spec.nodeName": string(r.Spec.NodeName)}, nil
}
