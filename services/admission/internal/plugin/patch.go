package plugin

import (
	"encoding/json"
	"strings"

	"github.com/kubesplit/kubesplit/pkg/admission"
)

// PatchOp is one RFC 6902 operation.
type PatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// Patch collects operations; Result is the allow carrying them.
type Patch []PatchOp

// Add sets the value at path (creating the last key, replacing what is
// there); its parent must exist.
func (p *Patch) Add(path string, value any) {
	*p = append(*p, PatchOp{Op: "add", Path: path, Value: value})
}

// Result is an allow with the patch, or a plain allow when it is empty.
func (p Patch) Result() (*admission.Result, error) {
	if len(p) == 0 {
		return admission.Allow(), nil
	}
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	return &admission.Result{Allowed: true, Patch: raw}, nil
}

// Pointer escapes one JSON pointer token (RFC 6901).
func Pointer(token string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(token)
}
