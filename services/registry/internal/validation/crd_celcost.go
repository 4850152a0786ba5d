package validation

import (
	"math"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesplit/kubesplit/pkg/celenv"
)

// validateVersionRuleCosts prices the rules of each version's schema. A
// version whose schema an update leaves as it was is not priced again, as
// in kube: a CRD accepted before the limits (or before a change in how
// rules are priced) stays updatable.
func validateVersionRuleCosts(versions []apiextensionsv1.CustomResourceDefinitionVersion, old *apiextensionsv1.CustomResourceDefinition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, v := range versions {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil || unchangedSchema(v, old) {
			continue
		}
		errs = append(errs, validateRuleCosts(v.Schema.OpenAPIV3Schema, p.Index(i).Child("schema", "openAPIV3Schema"))...)
	}
	return errs
}

// unchangedSchema reports whether old has version v with the same schema.
func unchangedSchema(v apiextensionsv1.CustomResourceDefinitionVersion, old *apiextensionsv1.CustomResourceDefinition) bool {
	if old == nil {
		return false
	}
	for _, o := range old.Spec.Versions {
		if o.Name == v.Name {
			return equality.Semantic.DeepEqual(o.Schema, v.Schema)
		}
	}
	return false
}

// validateRuleCosts refuses a schema whose x-kubernetes-validations could
// cost more than kube allows, as kube does when a CRD is written: each
// rule's estimated cost, times the number of values it may run on, within
// StaticEstimatedCostLimit, and all of them together within
// StaticEstimatedCRDCostLimit. Sizes come from maxItems, maxProperties
// and maxLength, or, where the schema sets none, from what fits in a
// request; so a rule nesting loops over an unbounded list is refused here,
// not left to spend seconds on every write.
func validateRuleCosts(root *apiextensionsv1.JSONSchemaProps, p *field.Path) field.ErrorList {
	c := costs{}
	one := uint64(1)
	c.walk(root, p, &one)
	if c.total <= celenv.StaticEstimatedCRDCostLimit {
		return c.errs
	}
	for _, r := range c.expensive {
		c.errs = append(c.errs, field.Forbidden(r.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"))
	}
	return append(c.errs, field.Forbidden(p, celenv.CostExceedsMessage(
		"x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema", c.total, celenv.StaticEstimatedCRDCostLimit)))
}

// costs accumulates a schema's rule costs as walk visits it.
type costs struct {
	errs      field.ErrorList
	total     uint64
	expensive []ruleCost // the (at most four) costliest, each over 1% of the limit
}

type ruleCost struct {
	path *field.Path
	cost uint64
}

// walk prices the rules of s and of every node below it. cardinality is
// how many values s may describe in one object, nil when no maxItems or
// maxProperties above it says.
func (c *costs) walk(s *apiextensionsv1.JSONSchemaProps, p *field.Path, cardinality *uint64) {
	if s == nil {
		return
	}
	c.priceRules(s, p, cardinality)
	childCard := func(times *uint64) *uint64 {
		if cardinality == nil || times == nil {
			return nil
		}
		n := celenv.MultiplyCost(*cardinality, *times)
		return &n
	}
	one := uint64(1)
	for _, name := range sortedKeys(s.Properties) {
		child := s.Properties[name]
		c.walk(&child, p.Child("properties").Key(name), childCard(&one))
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		c.walk(ap.Schema, p.Child("additionalProperties"), childCard(bound(s.MaxProperties)))
	}
	if s.Items != nil && s.Items.Schema != nil {
		c.walk(s.Items.Schema, p.Child("items"), childCard(bound(s.MaxItems)))
	}
}

func (c *costs) priceRules(s *apiextensionsv1.JSONSchemaProps, p *field.Path, cardinality *uint64) {
	if len(s.XValidations) == 0 {
		return
	}
	times := maxCardinality(s)
	if cardinality != nil {
		times = *cardinality
	}
	sizes := schemaSizes(s)
	for i, r := range s.XValidations {
		rp := p.Child("x-kubernetes-validations").Index(i)
		// A rule that does not compile is refused by validateSchemaRules.
		if rule, err := celenv.CompileSelf(r.Rule, celenv.Bool); err == nil {
			if cost, err := rule.MaxCost(sizes); err == nil {
				c.observe(rp.Child("rule"), "estimated rule cost", celenv.MultiplyCost(cost, times))
			}
		}
		if r.MessageExpression == "" {
			continue
		}
		if msg, err := celenv.CompileSelf(r.MessageExpression, celenv.String); err == nil {
			if cost, err := msg.MaxCost(sizes); err == nil {
				c.observe(rp.Child("messageExpression"), "estimated messageExpression cost", cost)
			}
		}
	}
}

// observe refuses one expression over the per-expression limit and adds
// it to the schema's total.
func (c *costs) observe(p *field.Path, what string, cost uint64) {
	if cost > celenv.StaticEstimatedCostLimit {
		c.errs = append(c.errs, field.Forbidden(p, celenv.CostExceedsMessage(what, cost, celenv.StaticEstimatedCostLimit)))
	}
	if math.MaxUint64-c.total < cost {
		c.total = math.MaxUint64
	} else {
		c.total += cost
	}
	if cost < celenv.StaticEstimatedCRDCostLimit/100 {
		return
	}
	c.expensive = append(c.expensive, ruleCost{p, cost})
	sort.SliceStable(c.expensive, func(i, j int) bool { return c.expensive[i].cost > c.expensive[j].cost })
	if len(c.expensive) > 4 {
		c.expensive = c.expensive[:4]
	}
}

func bound(max *int64) *uint64 {
	if max == nil {
		return nil
	}
	n := uint64(0)
	if *max > 0 {
		n = uint64(*max)
	}
	return &n
}

// maxCardinality is how many values of s's smallest serialized size fit
// in one request: how often a rule may run where nothing bounds it.
func maxCardinality(s *apiextensionsv1.JSONSchemaProps) uint64 {
	return uint64(celenv.MaxRequestSizeBytes / (minSize(s) + 1))
}

// schemaSizes is the size bound of a rule's values, the rule set on s:
// the path from self (or oldSelf) is followed through s.
func schemaSizes(s *apiextensionsv1.JSONSchemaProps) celenv.Sizes {
	return func(path []string) (uint64, bool) {
		if path[0] != celenv.Self && path[0] != celenv.OldSelf {
			return 0, false
		}
		n := s
		for _, step := range path[1:] {
			if n = schemaStep(n, step); n == nil {
				// A value the schema does not describe still fits in a request.
				return celenv.MaxRequestSizeBytes - 2, true
			}
		}
		return maxSize(n), true
	}
}

// keySchema and indexSchema stand for a map's keys and a list's indices.
var (
	keySchema   = &apiextensionsv1.JSONSchemaProps{Type: "string"}
	indexSchema = &apiextensionsv1.JSONSchemaProps{Type: "integer"}
)

// schemaStep is the schema one step of a cost path leads to, nil when s
// does not say. Values are dynamically typed here, so a comprehension over
// a list may come as "@keys": the schema tells lists from maps.
func schemaStep(s *apiextensionsv1.JSONSchemaProps, step string) *apiextensionsv1.JSONSchemaProps {
	list := s.Type == "array" && s.Items != nil
	switch step {
	case "@items", "@values", "@keys":
		switch {
		case list:
			return s.Items.Schema
		case step == "@keys":
			return keySchema
		case s.AdditionalProperties != nil:
			return s.AdditionalProperties.Schema
		}
		return nil
	case "@indices":
		return indexSchema
	}
	if child, ok := s.Properties[step]; ok {
		return &child
	}
	if s.AdditionalProperties != nil {
		return s.AdditionalProperties.Schema
	}
	return nil
}

// maxSize is kube's bound on the size of a value of s: its maxLength (in
// bytes, four a character), maxItems or maxProperties, else what fits in
// a request.
func maxSize(s *apiextensionsv1.JSONSchemaProps) uint64 {
	const unbounded = celenv.MaxRequestSizeBytes - 2
	switch {
	case s.XIntOrString || s.Type == "string":
		if s.MaxLength != nil {
			return *bound(s.MaxLength) * 4
		}
		if s.Type == "string" && len(s.Enum) > 0 {
			return longestEnum(s)
		}
		return unbounded
	case s.Type == "array":
		if s.MaxItems != nil {
			return *bound(s.MaxItems)
		}
		if s.Items == nil || s.Items.Schema == nil {
			return unbounded / 2
		}
		return uint64(unbounded / (minSize(s.Items.Schema) + 1))
	case s.Type == "object" && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		if s.MaxProperties != nil {
			return *bound(s.MaxProperties)
		}
		return uint64(unbounded / (minSize(s.AdditionalProperties.Schema) + 6))
	case s.Type == "object" && s.Properties != nil:
		return uint64(len(s.Properties))
	case s.Type == "":
		// Anything at all (x-kubernetes-preserve-unknown-fields).
		return unbounded
	}
	return 0
}

func longestEnum(s *apiextensionsv1.JSONSchemaProps) uint64 {
	var n uint64
	for _, e := range s.Enum {
		if l := uint64(len(e.Raw)); l > n {
			n = l
		}
	}
	return n
}

// minSize is the fewest bytes a value of s takes in JSON, kube's
// MinSerializedSize: what bounds how many fit in a request.
func minSize(s *apiextensionsv1.JSONSchemaProps) int64 {
	switch {
	case s.XIntOrString:
		return 1
	case s.Type == "string":
		return 2 // ""
	case s.Type == "boolean":
		return 4 // true
	case s.Type == "integer" || s.Type == "number":
		return 1
	case s.Type == "object" && len(s.Properties) > 0:
		size := int64(2)
		for _, name := range s.Required {
			if prop, ok := s.Properties[name]; ok && prop.Default == nil {
				size += int64(len(name)) + minSize(&prop) + 4
			}
		}
		return size
	case s.Type == "array" || s.Type == "object":
		return 2
	}
	return 1
}
