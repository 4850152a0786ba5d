package plugintest

import (
	"context"
	"testing"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// Asked checks that rules match every request in reqs: the requests the
// plugin acts on, which the registry must go on asking about.
func Asked(t testing.TB, rules []admission.Rule, reqs ...*admission.Attributes) {
	t.Helper()
	for _, a := range reqs {
		if !admission.Matches(rules, a) {
			t.Errorf("rules do not match %s %s/%s in %q, which the plugin acts on", a.Operation, a.Resource.Resource, a.SubResource, a.Namespace)
		}
	}
}

// Unasked checks that rules match none of reqs and that a allows each as
// is (no patch, warning or annotation): what the registry does without
// asking. Give requests the plugin would act on if it looked at them, so
// that a plugin that starts to look at more fails here until its rules
// say so.
func Unasked(t testing.TB, a admission.Admitter, rules []admission.Rule, reqs ...*admission.Attributes) {
	t.Helper()
	for _, attrs := range reqs {
		what := string(attrs.Operation) + " " + attrs.Resource.Resource + "/" + attrs.SubResource
		if admission.Matches(rules, attrs) {
			t.Errorf("rules match %s, given as outside them", what)
		}
		res, err := a.Admit(context.Background(), attrs)
		if err != nil || res == nil || !res.Allowed || len(res.Patch) > 0 || len(res.Warnings) > 0 || len(res.AuditAnnotations) > 0 {
			t.Errorf("%s is outside the rules, yet the plugin answered %+v, %v", what, res, err)
		}
	}
}

// Sub is a about subresource sub of its object.
func Sub(a *admission.Attributes, sub string) *admission.Attributes {
	a.SubResource, a.RequestSubResource = sub, sub
	return a
}
