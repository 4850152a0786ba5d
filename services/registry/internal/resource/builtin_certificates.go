package resource

import (
	"k8s.io/apiserver/pkg/registry/rest"
	csr "k8s.io/kubernetes/pkg/registry/certificates/certificates"
	"k8s.io/kubernetes/pkg/registry/certificates/clustertrustbundle"
	"k8s.io/kubernetes/pkg/registry/certificates/podcertificaterequest"
	"k8s.io/utils/clock"

	"github.com/kubesplit/kubesplit/services/registry/internal/kubetype"
)

// certificates is certificates.k8s.io/v1. A CSR's spec.username, uid,
// groups and extra are the creating user's (kube's strategy reads them from
// the request); its approval subresource writes only the Approved and
// Denied conditions. Who may approve or sign for a signer is checked by
// kube's CertificateApproval and CertificateSigning admission plugins, not
// by the strategies.
func certificates() []*Info {
	const g = "certificates.k8s.io"
	pcr := podcertificaterequest.NewStrategy()
	return []*Info{
		kube(&Info{Group: g, Version: "v1", Resource: "certificatesigningrequests", Kind: "CertificateSigningRequest",
			Singular: "certificatesigningrequest", ShortNames: []string{"csr"}, StatusSubresource: true,
			Subresources: []string{"approval"}},
			csr.Strategy, map[string]rest.RESTUpdateStrategy{
				"status":   csr.StatusStrategy,
				"approval": csr.ApprovalStrategy,
			}),
		kube(&Info{Group: g, Version: "v1", Resource: "clustertrustbundles", Kind: "ClusterTrustBundle",
			Singular: "clustertrustbundle"},
			clustertrustbundle.Strategy, nil),
		kube(&Info{Group: g, Version: "v1", Resource: "podcertificaterequests", Kind: "PodCertificateRequest",
			Singular: "podcertificaterequest", Namespaced: true, StatusSubresource: true},
			pcr, status(podcertificaterequest.NewStatusStrategy(pcr, kubetype.Authorizer, clock.RealClock{}))),
	}
}
