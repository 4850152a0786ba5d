# A SubjectAccessReview webhook in OPA, the worked example of swapping
# authz's engine (README, "Deploy"). authz posts the review to OPA's v0
# data API, which takes the request body as input and answers this
# document as it is.
package kubesplit.authz

import rego.v1

review := {
	"apiVersion": "authorization.k8s.io/v1",
	"kind": "SubjectAccessReview",
	"status": {"allowed": allowed, "denied": denied, "reason": reason},
}

# No opinion by default: the next engine in --authorization-mode (RBAC)
# decides.
default allowed := false

default denied := false

default reason := ""

# The example's rule: Secrets in the namespace "vault" are off limits to
# everyone RBAC would ask about (system:masters never reaches authz).
denied if {
	input.spec.resourceAttributes.resource == "secrets"
	input.spec.resourceAttributes.namespace == "vault"
}

reason := "secrets in vault are off limits (OPA)" if denied
