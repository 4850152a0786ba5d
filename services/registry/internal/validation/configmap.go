package validation

import (
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateConfigMap checks a ConfigMap's keys and size and, on update, that
// an immutable ConfigMap keeps its data.
func ValidateConfigMap(obj, old *unstructured.Unstructured) field.ErrorList {
	if errs := base64Errs(obj.Object, "binaryData"); len(errs) > 0 {
		return errs
	}
	cm, oldCM, errs := decodePair[corev1.ConfigMap](obj, old)
	if len(errs) > 0 {
		return errs
	}
	errs = validateConfigMapData(cm)
	if oldCM != nil {
		errs = append(errs, immutableErrs(oldCM.Immutable, cm.Immutable,
			immutableChange{"data", reflect.DeepEqual(cm.Data, oldCM.Data)},
			immutableChange{"binaryData", reflect.DeepEqual(cm.BinaryData, oldCM.BinaryData)})...)
	}
	return errs
}

// validateConfigMapData checks keys, that no key is in both data and
// binaryData (both become the same file), and the total size.
func validateConfigMapData(cm *corev1.ConfigMap) field.ErrorList {
	var errs field.ErrorList
	dataPath, binaryPath := field.NewPath("data"), field.NewPath("binaryData")
	total := 0
	for _, key := range sortedKeys(cm.Data) {
		errs = append(errs, dataKeyErrs(key, dataPath.Key(key))...)
		total += len(cm.Data[key])
	}
	for _, key := range sortedKeys(cm.BinaryData) {
		errs = append(errs, dataKeyErrs(key, binaryPath.Key(key))...)
		if _, dup := cm.Data[key]; dup {
			errs = append(errs, field.Invalid(dataPath.Key(key), key, "duplicate of key present in binaryData"))
		}
		total += len(cm.BinaryData[key])
	}
	if total > maxDataSize {
		// Kube reports the whole object with the empty path.
		errs = append(errs, field.TooLong(field.NewPath(""), "", maxDataSize))
	}
	return errs
}
