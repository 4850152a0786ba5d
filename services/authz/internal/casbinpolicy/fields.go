package casbinpolicy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kubesplit/kubesplit/pkg/authz"
)

// field is one request field's value, read from a review's attributes.
type field func(a authz.Attributes) any

// fields maps the names a model's request definition may use ([request_definition]
// r = sub, obj, act …) to the review's attributes. Names are compared
// without case; a model may name any subset, in any order. A resource
// request's obj is resource or resource/subresource; a non-resource
// request's is its path, so a plain ACL model covers both.
var fields = map[string]field{
	"sub":         func(a authz.Attributes) any { return a.User.Username },
	"user":        func(a authz.Attributes) any { return a.User.Username },
	"uid":         func(a authz.Attributes) any { return a.User.UID },
	"groups":      groups,
	"ns":          func(a authz.Attributes) any { return a.Namespace },
	"namespace":   func(a authz.Attributes) any { return a.Namespace },
	"dom":         func(a authz.Attributes) any { return a.Namespace },
	"domain":      func(a authz.Attributes) any { return a.Namespace },
	"obj":         object,
	"resource":    func(a authz.Attributes) any { return a.Resource },
	"subresource": func(a authz.Attributes) any { return a.Subresource },
	"act":         func(a authz.Attributes) any { return a.Verb },
	"verb":        func(a authz.Attributes) any { return a.Verb },
	"name":        func(a authz.Attributes) any { return a.Name },
	"group":       func(a authz.Attributes) any { return a.APIGroup },
	"apigroup":    func(a authz.Attributes) any { return a.APIGroup },
	"version":     func(a authz.Attributes) any { return a.APIVersion },
	"apiversion":  func(a authz.Attributes) any { return a.APIVersion },
	"path":        func(a authz.Attributes) any { return a.Path },
}

// groups is the user's groups as a list casbin's expressions can test
// with in: "system:masters" in r.groups.
func groups(a authz.Attributes) any {
	out := make([]any, len(a.User.Groups))
	for i, g := range a.User.Groups {
		out[i] = g
	}
	return out
}

// object is what the request acts on: resource[/subresource], or the
// path of a non-resource request.
func object(a authz.Attributes) any {
	if !a.ResourceRequest {
		return a.Path
	}
	if a.Subresource != "" {
		return a.Resource + "/" + a.Subresource
	}
	return a.Resource
}

// requestFields maps a model's request tokens (r_sub, r_obj, …) to their
// fields, refusing a name this package cannot fill.
func requestFields(tokens []string) ([]field, error) {
	out := make([]field, len(tokens))
	for i, tok := range tokens {
		name := strings.ToLower(strings.TrimPrefix(tok, "r_"))
		f, ok := fields[name]
		if !ok {
			return nil, fmt.Errorf("request field %q is not one of %s", name, strings.Join(FieldNames(), ", "))
		}
		out[i] = f
	}
	return out, nil
}

// FieldNames lists the request field names a model may use, sorted.
func FieldNames() []string {
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
