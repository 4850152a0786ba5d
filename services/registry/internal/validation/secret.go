package validation

import (
	"encoding/base64"
	"encoding/json"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultSecret sets the type to Opaque and folds stringData into data.
// stringData is write-only in kube: its conversion encodes each value into
// data, replacing a data value of the same key, and the object is stored
// without it. Doing it here keeps that contract for readers of the store.
func DefaultSecret(obj *unstructured.Unstructured) {
	setDefault(obj.Object, "type", string(corev1.SecretTypeOpaque))
	raw, ok := obj.Object["stringData"]
	if !ok {
		return
	}
	strs, ok := raw.(map[string]any)
	if raw != nil && (!ok || !allStrings(strs)) {
		return // left in place for the typed decode in validation to reject
	}
	if len(strs) > 0 {
		data := ensureMap(obj.Object, "data")
		if data == nil {
			return // data has the wrong type; validation says so
		}
		for key, v := range strs {
			data[key] = base64.StdEncoding.EncodeToString([]byte(v.(string)))
		}
	}
	delete(obj.Object, "stringData")
}

// allStrings reports whether every value of m is a string.
func allStrings(m map[string]any) bool {
	for _, v := range m {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

// ValidateSecret checks a Secret's keys and size, the keys its type
// requires and, on update, that the type and an immutable secret's data
// stay as they were.
func ValidateSecret(obj, old *unstructured.Unstructured) field.ErrorList {
	if errs := base64Errs(obj.Object, "data"); len(errs) > 0 {
		return errs
	}
	s, oldS, errs := decodePair[corev1.Secret](obj, old)
	if len(errs) > 0 {
		return errs
	}
	errs = validateSecretData(s)
	errs = append(errs, validateSecretType(s)...)
	if oldS != nil {
		errs = append(errs, apimachineryvalidation.ValidateImmutableField(s.Type, oldS.Type, field.NewPath("type"))...)
		errs = append(errs, immutableErrs(oldS.Immutable, s.Immutable,
			immutableChange{"data", reflect.DeepEqual(s.Data, oldS.Data)})...)
	}
	return errs
}

// validateSecretData checks the keys and the total size.
func validateSecretData(s *corev1.Secret) field.ErrorList {
	var errs field.ErrorList
	dataPath := field.NewPath("data")
	total := 0
	for _, key := range sortedKeys(s.Data) {
		errs = append(errs, dataKeyErrs(key, dataPath.Key(key))...)
		total += len(s.Data[key])
	}
	if total > maxDataSize {
		errs = append(errs, field.TooLong(dataPath, "", maxDataSize))
	}
	return errs
}

// validateSecretType checks what each well-known type promises its
// readers: the keys they look up, and JSON where they parse it.
func validateSecretType(s *corev1.Secret) field.ErrorList {
	dataPath := field.NewPath("data")
	required := func(keys ...string) field.ErrorList {
		var errs field.ErrorList
		for _, k := range keys {
			if _, ok := s.Data[k]; !ok {
				errs = append(errs, field.Required(dataPath.Key(k), ""))
			}
		}
		return errs
	}
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			return field.ErrorList{field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), "")}
		}
	case corev1.SecretTypeDockercfg:
		return requiredJSON(s.Data, corev1.DockerConfigKey, dataPath)
	case corev1.SecretTypeDockerConfigJson:
		return requiredJSON(s.Data, corev1.DockerConfigJsonKey, dataPath)
	case corev1.SecretTypeBasicAuth:
		// Either may be empty, but one of the two must be there.
		_, hasUser := s.Data[corev1.BasicAuthUsernameKey]
		_, hasPassword := s.Data[corev1.BasicAuthPasswordKey]
		if !hasUser && !hasPassword {
			return required(corev1.BasicAuthUsernameKey, corev1.BasicAuthPasswordKey)
		}
	case corev1.SecretTypeSSHAuth:
		if len(s.Data[corev1.SSHAuthPrivateKey]) == 0 {
			return field.ErrorList{field.Required(dataPath.Key(corev1.SSHAuthPrivateKey), "")}
		}
	case corev1.SecretTypeTLS:
		return required(corev1.TLSCertKey, corev1.TLSPrivateKeyKey)
	}
	return nil
}

// requiredJSON checks that data[key] is present and holds a JSON object.
func requiredJSON(data map[string][]byte, key string, dataPath *field.Path) field.ErrorList {
	raw, ok := data[key]
	if !ok {
		return field.ErrorList{field.Required(dataPath.Key(key), "")}
	}
	if err := json.Unmarshal(raw, &map[string]any{}); err != nil {
		return field.ErrorList{field.Invalid(dataPath.Key(key), redacted, err.Error())}
	}
	return nil
}
