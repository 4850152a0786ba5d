package handler

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// maxSMPMergeWork bounds the list merging of one strategic merge patch.
// The library orders each list it merges by searching the list for every
// element it sorts, so merging a list of n elements costs about n²: 4,000
// containers take more than a second, and the 100,000 a 3 MiB patch can
// hold an hour. The bound, the sum of n² over the lists a patch merges,
// lets lists of 4,000 through (far more than any built-in kind holds)
// and refuses the rest before any work.
const maxSMPMergeWork = 4000 * 4000

// checkSMPWork refuses, with 413, a strategic merge patch whose list
// merges, against the current object cur, would cost over
// maxSMPMergeWork. typed gives the lists' merge strategies and keys.
func checkSMPWork(typed runtime.Object, cur, patch []byte) error {
	meta, err := strategicpatch.NewPatchMetaFromStruct(typed)
	if err != nil {
		return nil // the patch itself will report what is wrong
	}
	var curMap, patchMap map[string]any
	if json.Unmarshal(cur, &curMap) != nil || json.Unmarshal(patch, &patchMap) != nil {
		return nil
	}
	w := smpWork{}
	w.mapWork(meta, curMap, patchMap)
	if w.total > maxSMPMergeWork {
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
			"the strategic merge patch merges lists too long to merge in one request (work %d, limit %d)", w.total, maxSMPMergeWork))
	}
	return nil
}

// smpWork adds up the squared lengths of the lists a patch merges.
type smpWork struct{ total uint64 }

func (w *smpWork) add(n int) {
	sq := uint64(n) * uint64(n)
	if w.total > math.MaxUint64-sq {
		w.total = math.MaxUint64
		return
	}
	w.total += sq
}

// mapWork follows a patch's map into the object, field by field.
func (w *smpWork) mapWork(meta strategicpatch.LookupPatchMeta, cur, patch map[string]any) {
	for k, pv := range patch {
		if order, ok := strings.CutPrefix(k, "$setElementOrder/"); ok {
			// The order directive is sorted with the list it orders.
			list, _ := pv.([]any)
			curList, _ := cur[order].([]any)
			w.add(len(list) + len(curList))
			continue
		}
		if strings.HasPrefix(k, "$") {
			continue
		}
		switch pv := pv.(type) {
		case map[string]any:
			if sub, _, err := meta.LookupPatchMetadataForStruct(k); err == nil {
				curV, _ := cur[k].(map[string]any)
				w.mapWork(sub, curV, pv)
			}
		case []any:
			sub, pm, err := meta.LookupPatchMetadataForSlice(k)
			if err != nil || !slices.Contains(pm.GetPatchStrategies(), "merge") {
				continue // replaced whole, in linear time
			}
			curList, _ := cur[k].([]any)
			w.add(len(pv) + len(curList))
			w.itemsWork(sub, pm.GetPatchMergeKey(), curList, pv)
		}
	}
}

// itemsWork follows each element of a merged list into the element it
// merges with, found by the list's merge key.
func (w *smpWork) itemsWork(meta strategicpatch.LookupPatchMeta, key string, cur, patch []any) {
	if key == "" {
		return // a list of scalars: nothing below
	}
	byKey := map[string]map[string]any{}
	for _, c := range cur {
		if m, ok := c.(map[string]any); ok {
			byKey[fmt.Sprint(m[key])] = m
		}
	}
	for _, p := range patch {
		if m, ok := p.(map[string]any); ok {
			w.mapWork(meta, byKey[fmt.Sprint(m[key])], m)
		}
	}
}
