package plugin

import (
	"encoding/json"
	"reflect"
	"slices"
)

// PatchFor is the JSON patch turning the admitted object (raw, as the
// client sent it) into what a plugin or webhook made of it: the fields
// where after differs from before (both the defaulted object, before and
// after the change), so that the defaults, which the registry applies itself, are
// not written back. A changed field whose parent raw lacks is added whole
// at the first missing level; lists are replaced whole, as kube's own
// patches of a list would not survive concurrent reordering anyway.
func PatchFor(raw []byte, before, after map[string]any) (Patch, error) {
	var sent map[string]any
	if err := json.Unmarshal(raw, &sent); err != nil {
		return nil, err
	}
	var p Patch
	diff(&p, "", sent, before, after)
	return p, nil
}

// diff appends to p the operations at path for the members of one object.
func diff(p *Patch, path string, sent, before, after map[string]any) {
	for _, k := range keys(before, after) {
		at := path + "/" + Pointer(k)
		b, inBefore := before[k]
		a, inAfter := after[k]
		s, inSent := sent[k]
		switch {
		case !inAfter:
			if inSent {
				*p = append(*p, PatchOp{Op: "remove", Path: at})
			}
		case inBefore && reflect.DeepEqual(a, b):
		default:
			bm, bok := b.(map[string]any)
			am, aok := a.(map[string]any)
			sm, sok := s.(map[string]any)
			if bok && aok && sok {
				diff(p, at, sm, bm, am)
				continue
			}
			p.Add(at, a)
		}
	}
}

// keys are the members of either object, sorted so that a patch is the
// same from one run to the next.
func keys(a, b map[string]any) []string {
	var ks []string
	for k := range a {
		ks = append(ks, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}
