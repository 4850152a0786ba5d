package openapi

import (
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// identifier turns a dotted or dashed name into the camel-case word kube
// builds operation IDs and tags from ("rbac.authorization" becomes
// "rbacAuthorization"): letters, underscores and digits after the first rune
// stay, and every other rune is dropped and capitalizes the next one kept.
func identifier(s string, upperFirst bool) string {
	var b strings.Builder
	upper := upperFirst
	for i, r := range s {
		if !unicode.IsLetter(r) && r != '_' && (i == 0 || !unicode.IsDigit(r)) {
			upper = true
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// groupWord is the group as operation IDs and tags spell it: "core" for the
// legacy group, and without the ".k8s.io" suffix every built-in group has.
func groupWord(group string) string {
	if group == "" {
		return "core"
	}
	return strings.TrimSuffix(group, ".k8s.io")
}

// operationID is kube's ID for an operation: the verb, then the group and
// version ("CoreV1", "RbacAuthorizationV1"), then the rest of the operation
// name ("NamespacedPod"). Generated clients name their methods after it.
func operationID(verb string, gv schema.GroupVersion, rest string) string {
	return verb + identifier(groupWord(gv.Group), true) + identifier(gv.Version, true) + rest
}

// operationTag is the tag kube groups a group-version's operations under,
// such as "core_v1" or "rbacAuthorization_v1".
func operationTag(gv schema.GroupVersion) string {
	return identifier(groupWord(gv.Group), false) + "_" + identifier(gv.Version, false)
}
