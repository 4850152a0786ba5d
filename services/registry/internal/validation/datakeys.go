package validation

import (
	"encoding/base64"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxDataSize caps the data of a ConfigMap or Secret (1 MiB), so that one
// object cannot exhaust etcd's request size or the kubelet's memory.
const maxDataSize = 1024 * 1024

// redacted stands in for secret contents in error messages.
const redacted = "<secret contents redacted>"

// immutableMsg is kube's message for a change to an immutable object.
const immutableMsg = "field is immutable when `immutable` is set"

// dataKeyErrs checks that a key can be a file name in a volume and an
// environment variable name: letters, digits, '-', '_' and '.'.
func dataKeyErrs(key string, path *field.Path) field.ErrorList {
	return invalidEach(path, key, validation.IsConfigMapKey(key))
}

// base64Errs checks that every value of the map at m[key] is base64, the
// JSON form of []byte, before the typed decode that would fail without a
// field path. The values are secret, so they are never echoed.
func base64Errs(m map[string]any, key string) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath(key)
	for name, v := range mapAt(m, key) {
		s, ok := v.(string)
		if v == nil {
			continue
		}
		if !ok {
			errs = append(errs, field.Invalid(path.Key(name), redacted, "must be a base64-encoded string"))
			continue
		}
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			errs = append(errs, field.Invalid(path.Key(name), redacted, fmt.Sprintf("must be base64-encoded: %v", err)))
		}
	}
	return errs
}

// immutableChange is one part of an object that `immutable: true` freezes:
// its field name and whether it is unchanged.
type immutableChange struct {
	field     string
	unchanged bool
}

// immutableErrs enforces `immutable: true` of the old object: it cannot be
// unset, and the listed fields cannot change.
func immutableErrs(oldImmutable, newImmutable *bool, parts ...immutableChange) field.ErrorList {
	if oldImmutable == nil || !*oldImmutable {
		return nil
	}
	var errs field.ErrorList
	if newImmutable == nil || !*newImmutable {
		errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableMsg))
	}
	for _, p := range parts {
		if !p.unchanged {
			errs = append(errs, field.Forbidden(field.NewPath(p.field), immutableMsg))
		}
	}
	return errs
}
