package rbac

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
)

// listSep separates the elements of a rule field in a casbin policy line.
// Casbin policy values are strings, and splitting a field into one line per
// element would multiply the lines of a rule by the product of its list
// lengths; the unit separator cannot occur in a name kube accepts.
const listSep = "\x1f"

// encodeList packs a rule field into one policy value. Every element is
// preceded by listSep, so the empty list ("") stays distinct from the list
// holding one empty string (listSep), which matters for resourceNames.
func encodeList(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return listSep + strings.Join(list, listSep)
}

// anyElem reports whether match accepts an element of the encoded list, without
// allocating: this runs once per policy line per request.
func anyElem(encoded string, match func(elem string) bool) bool {
	if encoded == "" {
		return false
	}
	rest := encoded[len(listSep):]
	for {
		elem, next, more := strings.Cut(rest, listSep)
		if match(elem) {
			return true
		}
		if !more {
			return false
		}
		rest = next
	}
}

// verbMatches is kube's rule: "*" or the exact verb.
func verbMatches(verb, verbs string) bool {
	return anyElem(verbs, func(v string) bool { return v == rbacv1.VerbAll || v == verb })
}

// groupMatches is kube's rule: "*" or the exact group, "" being the core
// group.
func groupMatches(group, groups string) bool {
	return anyElem(groups, func(g string) bool { return g == rbacv1.APIGroupAll || g == group })
}

// resourceMatches is kube's rule for resources. combined is the resource with
// its subresource ("pods/log"). A rule resource matches when it is "*", the
// exact combined resource, or "*/<subresource>". As in kube, "pods/*" is not
// a glob: granting every present and future subresource of a resource at
// once is deliberately unsupported.
func resourceMatches(combined, subresource, resources string) bool {
	return anyElem(resources, func(r string) bool {
		if r == rbacv1.ResourceAll || r == combined {
			return true
		}
		return subresource != "" && len(r) == len(subresource)+2 &&
			strings.HasPrefix(r, "*/") && strings.HasSuffix(r, subresource)
	})
}

// nameMatches is kube's rule for resourceNames: an empty list allows any
// name; otherwise the requested name must be listed. A request without a
// name (list, create, deletecollection) therefore never matches a rule that
// lists names.
func nameMatches(name, names string) bool {
	if names == "" {
		return true
	}
	return anyElem(names, func(n string) bool { return n == name })
}

// urlMatches is kube's rule for nonResourceURLs: "*", the exact path, or a
// prefix when the rule URL ends in "*".
func urlMatches(path, urls string) bool {
	return anyElem(urls, func(u string) bool {
		if u == rbacv1.NonResourceAll || u == path {
			return true
		}
		return strings.HasSuffix(u, "*") && strings.HasPrefix(path, strings.TrimRight(u, "*"))
	})
}
