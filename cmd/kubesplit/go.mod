module github.com/kubesplit/kubesplit/cmd/kubesplit

go 1.26.0

require (
	github.com/kubesplit/kubesplit/pkg v0.0.0
	github.com/kubesplit/kubesplit/services/admission v0.0.0
	github.com/kubesplit/kubesplit/services/aggregator v0.0.0
	github.com/kubesplit/kubesplit/services/authn v0.0.0
	github.com/kubesplit/kubesplit/services/authz v0.0.0
	github.com/kubesplit/kubesplit/services/registry v0.0.0
	github.com/spf13/pflag v1.0.10
	k8s.io/client-go v0.37.2
)

// The services are modules of this repository, built from the tree (the
// workspace, go.work, lists them all).
replace (
	github.com/kubesplit/kubesplit/pkg => ../../pkg
	github.com/kubesplit/kubesplit/services/admission => ../../services/admission
	github.com/kubesplit/kubesplit/services/aggregator => ../../services/aggregator
	github.com/kubesplit/kubesplit/services/authn => ../../services/authn
	github.com/kubesplit/kubesplit/services/authz => ../../services/authz
	github.com/kubesplit/kubesplit/services/registry => ../../services/registry
)
