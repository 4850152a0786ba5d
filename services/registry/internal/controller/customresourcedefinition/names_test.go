package customresourcedefinition

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

func TestNameChecks(t *testing.T) {
	taken := sets.New("widgets", "widget", "wd")
	cases := map[string]struct {
		want, have string
		ok         bool
	}{
		"fresh":         {want: "gadgets", ok: true},
		"taken":         {want: "widgets", ok: false},
		"already owned": {want: "widgets", have: "widgets", ok: true},
	}
	for name, c := range cases {
		if err := freeOrOwn(c.want, c.have, taken); (err == nil) != c.ok {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := shortNamesFree([]string{"gd", "wd"}, nil, taken); err == nil || err.Error() != `"wd" is already in use` {
		t.Errorf("short names: %v", err)
	}
	if err := shortNamesFree([]string{"wd"}, []string{"wd"}, taken); err != nil {
		t.Errorf("an owned short name: %v", err)
	}
}

func TestSetConditionKeepsTransitionTime(t *testing.T) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}
	setCondition(crd, cond)
	first := crd.Status.Conditions[0].LastTransitionTime
	before := crd.DeepCopy()
	cond.Reason = "Other"
	setCondition(crd, cond)
	if len(crd.Status.Conditions) != 1 || !crd.Status.Conditions[0].LastTransitionTime.Equal(&first) {
		t.Errorf("conditions %+v: one condition, its transition time kept", crd.Status.Conditions)
	}
	if equalStatus(before, crd) {
		t.Error("a new reason compared equal")
	}
}
