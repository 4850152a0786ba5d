package workload

import (
	"errors"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// CodeTransport counts failures that got no HTTP status: connection errors,
// timeouts, undecodable responses.
const CodeTransport = "transport"

// Code classifies a request's outcome for the report: "" for success, the
// HTTP status code for an error response, CodeTransport otherwise.
func Code(err error) string {
	if err == nil {
		return ""
	}
	// client-go turns every non-2xx answer into an APIStatus, even one
	// whose body is not a Status, so this catches all HTTP errors.
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if code := status.Status().Code; code != 0 {
			return strconv.Itoa(int(code))
		}
	}
	return CodeTransport
}
