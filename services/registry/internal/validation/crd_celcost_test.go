package validation

import (
	"fmt"
	"strings"
	"testing"
)

func TestCRDRuleCosts(t *testing.T) {
	schema := "spec.versions[0].schema.openAPIV3Schema"
	spec := schema + ".properties.spec"
	rulesAt := spec + ".x-kubernetes-validations"
	items := spec + ".properties.items"
	base := object(t, validCRD)
	withItems := func(bounds map[string]any, rules ...string) []edit {
		var list []any
		for _, r := range rules {
			list = append(list, map[string]any{"rule": r})
		}
		itemSchema := map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
		for k, v := range bounds {
			if k == "maxLength" {
				itemSchema["items"].(map[string]any)[k] = v
			} else {
				itemSchema[k] = v
			}
		}
		return []edit{{items, itemSchema}, {rulesAt, list}}
	}
	const nested = "self.items.all(x, self.items.all(y, x != y || true))"
	rulePath := schema + ".properties[spec].x-kubernetes-validations[0].rule"

	// Unbounded: a million strings, each compared with a million others.
	errs := ValidateCustomResourceDefinition(with(t, base, withItems(nil, nested)...), nil)
	if len(errs) == 0 || !strings.Contains(fmt.Sprint(errs),
		rulePath+": Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems") {
		t.Errorf("the nested rule over an unbounded list: %v", errs)
	}

	// An update that leaves the schema as it was is not priced again, so
	// a CRD stored before the limits stays updatable; one that adds the
	// rule is priced.
	costly := with(t, base, withItems(nil, nested)...)
	if errs := ValidateCustomResourceDefinition(costly, costly); len(errs) != 0 {
		t.Errorf("an update keeping the costly schema: %v", errs)
	}
	if errs := ValidateCustomResourceDefinition(costly, base); len(errs) == 0 {
		t.Errorf("an update adding the costly rule was accepted")
	}

	// Ten items of at most 64 characters: cheap enough.
	bounded := map[string]any{"maxItems": int64(10), "maxLength": int64(64)}
	if errs := ValidateCustomResourceDefinition(with(t, base, withItems(bounded, nested)...), nil); len(errs) != 0 {
		t.Errorf("the nested rule over a bounded list: %v", errs)
	}

	// Bounded items, unbounded strings: each comparison may read 3 MiB.
	if errs := ValidateCustomResourceDefinition(with(t, base, withItems(map[string]any{"maxItems": int64(10)}, nested)...), nil); len(errs) == 0 {
		t.Errorf("the nested rule over unbounded strings was accepted")
	}

	// A rule on each item runs once per item: a cheap rule on a million
	// items is fine, one costing a little more than 10 a run is not.
	itemRules := func(rule string) []edit {
		return []edit{{items, map[string]any{"type": "array", "items": map[string]any{
			"type": "string", "maxLength": int64(64), "x-kubernetes-validations": []any{map[string]any{"rule": rule}}}}}}
	}
	if errs := ValidateCustomResourceDefinition(with(t, base, itemRules("self.size() < 10")...), nil); len(errs) != 0 {
		t.Errorf("a cheap rule on each item: %v", errs)
	}
	if errs := ValidateCustomResourceDefinition(with(t, base, itemRules("self.matches('^[a-z]+$') && self.startsWith('a') && self.endsWith('z')")...), nil); len(errs) == 0 {
		t.Errorf("a costly rule on each of a million items was accepted")
	}

	// Each rule within its limit, together over the CRD's.
	var many []string
	for i := range 14 {
		many = append(many, fmt.Sprintf("self.items.all(x, self.items.all(y, x != y || %d > 0))", i))
	}
	wide := map[string]any{"maxItems": int64(500), "maxLength": int64(64)} // each rule about 7.8M
	errs = ValidateCustomResourceDefinition(with(t, base, withItems(wide, many...)...), nil)
	if !strings.Contains(fmt.Sprint(errs), schema+": Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of") ||
		!strings.Contains(fmt.Sprint(errs), "contributed to estimated rule cost total exceeding cost limit") ||
		strings.Contains(fmt.Sprint(errs), "estimated rule cost exceeds") {
		t.Errorf("fourteen rules over the total: %v", errs)
	}
}
