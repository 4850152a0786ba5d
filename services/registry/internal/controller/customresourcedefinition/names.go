package customresourcedefinition

import (
	"fmt"
	"reflect"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// acceptNames sets a CRD's accepted names and its NamesAccepted and
// Established conditions, as kube's naming and establishing controllers
// do: a name is accepted when it is already this CRD's or no other CRD of
// the group holds it; a CRD is established once its names are accepted,
// and stays so.
func (c *Controller) acceptNames(crd *apiextensionsv1.CustomResourceDefinition) {
	resources, kinds := c.takenNames(crd)
	want, have := crd.Spec.Names, crd.Status.AcceptedNames
	accepted := have
	cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.NamesAccepted,
		Status: apiextensionsv1.ConditionTrue, Reason: "NoConflicts", Message: "no conflicts found"}
	conflict := func(reason string, err error) {
		cond.Status, cond.Reason, cond.Message = apiextensionsv1.ConditionFalse, reason, err.Error()
	}
	if err := freeOrOwn(want.Plural, have.Plural, resources); err != nil {
		conflict("PluralConflict", err)
	} else {
		accepted.Plural = want.Plural
	}
	if err := freeOrOwn(want.Singular, have.Singular, resources); err != nil {
		conflict("SingularConflict", err)
	} else {
		accepted.Singular = want.Singular
	}
	if err := shortNamesFree(want.ShortNames, have.ShortNames, resources); err != nil {
		conflict("ShortNamesConflict", err)
	} else {
		accepted.ShortNames = want.ShortNames
	}
	if err := freeOrOwn(want.Kind, have.Kind, kinds); err != nil {
		conflict("KindConflict", err)
	} else {
		accepted.Kind = want.Kind
	}
	if err := freeOrOwn(want.ListKind, have.ListKind, kinds); err != nil {
		conflict("ListKindConflict", err)
	} else {
		accepted.ListKind = want.ListKind
	}
	// Categories are shared by design: they never conflict.
	accepted.Categories = want.Categories
	crd.Status.AcceptedNames = accepted
	setCondition(crd, cond)
	switch {
	case cond.Status == apiextensionsv1.ConditionTrue:
		setCondition(crd, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established,
			Status: apiextensionsv1.ConditionTrue, Reason: "InitialNamesAccepted", Message: "the initial names have been accepted"})
	case !isTrue(crd, apiextensionsv1.Established):
		setCondition(crd, apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Established,
			Status: apiextensionsv1.ConditionFalse, Reason: "NotAccepted", Message: "not all names are accepted"})
	}
}

// takenNames are the accepted resource names (plural, singular, short)
// and kinds of the other CRDs in crd's group.
func (c *Controller) takenNames(crd *apiextensionsv1.CustomResourceDefinition) (resources, kinds sets.Set[string]) {
	resources, kinds = sets.New[string](), sets.New[string]()
	for _, other := range c.all() {
		if other.Name == crd.Name || other.Spec.Group != crd.Spec.Group {
			continue
		}
		n := other.Status.AcceptedNames
		resources.Insert(n.Plural, n.Singular)
		resources.Insert(n.ShortNames...)
		kinds.Insert(n.Kind, n.ListKind)
	}
	resources.Delete("")
	kinds.Delete("")
	return resources, kinds
}

// freeOrOwn accepts a name this CRD already holds or nobody holds.
func freeOrOwn(want, have string, taken sets.Set[string]) error {
	if want == have || !taken.Has(want) {
		return nil
	}
	return fmt.Errorf("%q is already in use", want)
}

func shortNamesFree(want, have []string, taken sets.Set[string]) error {
	own := sets.New(have...)
	for _, n := range want {
		if !own.Has(n) && taken.Has(n) {
			return fmt.Errorf("%q is already in use", n)
		}
	}
	return nil
}

// setCondition sets one condition, keeping lastTransitionTime when its
// status does not change.
func setCondition(crd *apiextensionsv1.CustomResourceDefinition, c apiextensionsv1.CustomResourceDefinitionCondition) {
	c.LastTransitionTime = metav1.Now()
	for i, cur := range crd.Status.Conditions {
		if cur.Type != c.Type {
			continue
		}
		if cur.Status == c.Status {
			c.LastTransitionTime = cur.LastTransitionTime
		}
		crd.Status.Conditions[i] = c
		return
	}
	crd.Status.Conditions = append(crd.Status.Conditions, c)
}

func isTrue(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == t {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}

// equalStatus reports whether two CRDs' statuses match, times aside.
func equalStatus(a, b *apiextensionsv1.CustomResourceDefinition) bool {
	strip := func(crd *apiextensionsv1.CustomResourceDefinition) apiextensionsv1.CustomResourceDefinitionStatus {
		s := *crd.Status.DeepCopy()
		for i := range s.Conditions {
			s.Conditions[i].LastTransitionTime = metav1.Time{}
		}
		return s
	}
	return reflect.DeepEqual(strip(a), strip(b))
}
