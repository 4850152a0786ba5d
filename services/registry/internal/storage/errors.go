package storage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// errStorage is what a client is told of an etcd failure it can do nothing
// about. etcd's and gRPC's own messages ("rpc error: code = ... desc = ...")
// describe the registry's plumbing, not the request, so they go to the log.
var errStorage = errors.New("the registry's storage failed the request; its log has the details")

// storageError turns an etcd client error into the Status a client gets.
//
// A deadline or cancellation means etcd may or may not have applied a
// write, so it is a 504 that clients must not blindly replay. etcd
// refusing for load is kube's 429. Anything else is a plain 500.
func storageError(err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		status.Code(err) == codes.DeadlineExceeded || status.Code(err) == codes.Canceled:
		return apierrors.NewTimeoutError("etcd did not answer in time", 0)
	case errors.Is(err, rpctypes.ErrTooManyRequests):
		return apierrors.NewTooManyRequestsError("etcd is overloaded; try again later")
	case tooLarge(err):
		return apierrors.NewRequestEntityTooLargeError("the object is larger than etcd accepts in one request")
	}
	return internalError(err)
}

// writeError is storageError for a write of size bytes, so that the 413 a
// too large object gets says how large it was.
func writeError(err error, size int) error {
	if tooLarge(err) {
		return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf(
			"the object is %d bytes as stored, more than etcd accepts in one request (its --max-request-bytes, 1.5 MiB unless set otherwise)", size))
	}
	return storageError(err)
}

// tooLarge reports a request over etcd's size limit: refused by the server
// (over its --max-request-bytes), or by the client before it was sent (over
// the gRPC message size). etcd's own ResourceExhausted errors, such as a
// full database, arrive as rpctypes errors and are not taken for it.
func tooLarge(err error) bool {
	if errors.Is(err, rpctypes.ErrRequestTooLarge) {
		return true
	}
	var etcdErr rpctypes.EtcdError
	return !errors.As(err, &etcdErr) && status.Code(err) == codes.ResourceExhausted
}

// internalError is a 500 whose message names no internals; err is logged.
func internalError(err error) error {
	slog.Error("etcd request failed", "err", err)
	return apierrors.NewInternalError(errStorage)
}
