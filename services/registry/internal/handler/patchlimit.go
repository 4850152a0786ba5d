package handler

import (
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// maxPatchCopyBytes bounds what the copy operations of one JSON patch may
// add up to, kube's JSONPatchMaxCopyBytes (the same as its request size
// limit): without it, a few dozen copies of a field into itself double an
// object each time, and a 2 KB patch asks for gigabytes (CVE-2019-1002100).
const maxPatchCopyBytes = maxBodyBytes

// maxPatchedBytes bounds the object a patch or an apply may produce: no
// larger than a request could have sent whole, so what the patch makes
// costs decoding, validation, admission and storage no more than a create
// could. An object that large would not fit in etcd either (1.5 MiB).
const maxPatchedBytes = maxBodyBytes

func init() {
	// The library counts copies against this package variable, unlimited
	// by default, and kube-apiserver sets it while building its server. It
	// is set here, once for the process, so it also bounds the JSON patches
	// admission webhooks return (pkg/admission applies them with the same
	// library), as kube's limit does.
	jsonpatch.AccumulatedCopySizeLimit = maxPatchCopyBytes
}

// checkPatchedSize refuses a patched object over maxPatchedBytes with 413,
// before anything decodes, validates or stores it.
func checkPatchedSize(patched []byte) error {
	if len(patched) > maxPatchedBytes {
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
			"the object would be %d bytes, more than the limit of %d", len(patched), maxPatchedBytes))
	}
	return nil
}
