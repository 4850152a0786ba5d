package resource

import (
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/registry/rest"
	csr "k8s.io/kubernetes/pkg/registry/certificates/certificates"
	"k8s.io/kubernetes/pkg/registry/certificates/clustertrustbundle"
	"k8s.io/kubernetes/pkg/registry/certificates/podcertificaterequest"
	"k8s.io/utils/clock"
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
			pcr, status(podcertificaterequest.NewStatusStrategy(pcr, privilegedOnly, clock.RealClock{}))),
	}
}

// privilegedOnly is the authorizer given to strategies that call theirs
// unconditionally (a PodCertificateRequest's status write asks whether the
// writer may "sign" for the signer; a ResourceClaim's, whether it may bind
// claims or report a driver's device status): a nil one would panic. It is
// kube's own first authorizer, which allows system:masters; the RBAC,
// Node and webhook authorizers behind it are not reachable from here, so
// everyone else is refused (Forbidden), never allowed unchecked.
var privilegedOnly = authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup)
