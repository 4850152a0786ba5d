package admission

import (
	"encoding/json"
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// ApplyPatch applies a Result's JSON patch to an object's JSON, as the
// registry does before storing it. An empty patch leaves the object as it
// is. A patch that is not a JSON patch is ErrInvalidResult; one that does
// not apply, or a non-empty one with no object to apply to (DELETE), is
// ErrPatchFailed.
func ApplyPatch(object, patch []byte) ([]byte, error) {
	p, err := decodePatch(patch)
	if err != nil || len(p) == 0 {
		return object, err
	}
	if len(object) == 0 {
		// The library would return the empty document unchanged, silently
		// dropping the mutation.
		return nil, fmt.Errorf("%w: no object to patch", ErrPatchFailed)
	}
	out, err := p.Apply(object)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPatchFailed, err)
	}
	return out, nil
}

// decodePatch parses an RFC 6902 patch; empty input is an empty patch.
func decodePatch(patch []byte) (jsonpatch.Patch, error) {
	if len(patch) == 0 {
		return nil, nil
	}
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, fmt.Errorf("%w: patch is not a JSON patch: %v", ErrInvalidResult, err)
	}
	return p, nil
}

// AppendPatch returns the operations of first followed by those of next, as
// one patch. JSON patch operations apply in order, so the result applied to
// the original object gives what applying first, then next, gives: the
// chain's answer is one patch against the object it was asked about, as a
// webhook's must be.
func AppendPatch(first, next []byte) ([]byte, error) {
	if len(first) == 0 {
		return next, nil
	}
	var a, b []json.RawMessage
	if err := json.Unmarshal(first, &a); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidResult, err)
	}
	if err := json.Unmarshal(next, &b); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidResult, err)
	}
	return json.Marshal(append(a, b...))
}
