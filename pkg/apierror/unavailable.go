package apierror

import (
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultRetryAfter is what Unavailable asks a client to wait when told
// nothing else.
const DefaultRetryAfter = time.Second

// Unavailable is the 503 for a request that reached nothing it could
// change: a stage that is down or could not decide. It carries Retry-After
// (retryAfter rounded up to whole seconds, DefaultRetryAfter when not
// positive), so client-go sends it again, writes included (DESIGN.md,
// "Failure behaviour"). message goes to the client: name no internal
// address in it.
func Unavailable(message string, retryAfter time.Duration) *apierrors.StatusError {
	if retryAfter <= 0 {
		retryAfter = DefaultRetryAfter
	}
	err := apierrors.NewServiceUnavailable(message)
	err.ErrStatus.Details = &metav1.StatusDetails{RetryAfterSeconds: int32((retryAfter + time.Second - 1) / time.Second)}
	return err
}
