package escalation

import (
	"bytes"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
)

// decode reads ext, which holds JSON in Raw (as on the wire) or a typed
// object (a local caller), into into.
func decode(ext runtime.RawExtension, into any) error {
	raw := bytes.TrimSpace(ext.Raw)
	if len(raw) == 0 && ext.Object != nil {
		var err error
		if raw, err = json.Marshal(ext.Object); err != nil {
			return fmt.Errorf("%w: %w", errDecode, err)
		}
	}
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return fmt.Errorf("%w: no object", errDecode)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("%w: %w", errDecode, err)
	}
	return nil
}
