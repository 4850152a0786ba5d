package storage

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Every etcd failure reaches the client as a Status with kube's code and a
// message about the request; what gRPC said goes to the log only.
func TestStorageErrorNamesNoInternals(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		code int32
	}{
		{"etcd refuses a large request", rpctypes.ErrRequestTooLarge, http.StatusRequestEntityTooLarge},
		{"the client refuses a large request", status.Error(codes.ResourceExhausted, "trying to send message larger than max (3678252 vs. 2097152)"), http.StatusRequestEntityTooLarge},
		{"wrapped", fmt.Errorf("txn: %w", rpctypes.ErrRequestTooLarge), http.StatusRequestEntityTooLarge},
		{"etcd overloaded", rpctypes.ErrTooManyRequests, http.StatusTooManyRequests},
		{"database full", rpctypes.ErrNoSpace, http.StatusInternalServerError},
		{"unavailable", status.Error(codes.Unavailable, "connection error: desc = \"transport: Error while dialing\""), http.StatusInternalServerError},
		{"no leader", rpctypes.ErrNoLeader, http.StatusInternalServerError},
		{"deadline", context.DeadlineExceeded, http.StatusGatewayTimeout},
		{"gRPC deadline", status.Error(codes.DeadlineExceeded, "context deadline exceeded"), http.StatusGatewayTimeout},
		{"unknown", errors.New("rpc error: code = Internal desc = something broke"), http.StatusInternalServerError},
	} {
		t.Run(c.name, func(t *testing.T) {
			var se *apierrors.StatusError
			if !errors.As(storageError(c.err), &se) {
				t.Fatalf("%v is not a Status", storageError(c.err))
			}
			s := se.Status()
			if s.Code != c.code {
				t.Errorf("code %d, want %d: %s", s.Code, c.code, s.Message)
			}
			for _, internal := range []string{"rpc error", "desc =", "etcdserver:", "transport"} {
				if strings.Contains(s.Message, internal) {
					t.Errorf("message shows %q: %s", internal, s.Message)
				}
			}
		})
	}
}

// A write over etcd's request limit is 413 from the store itself, saying
// how large the object was, and stores nothing; etcd refuses one between
// 1.5 MiB and 2 MiB, its client one over gRPC's 2 MiB.
func TestWriteOverEtcdLimit(t *testing.T) {
	r, s, ctx := configMaps(t)
	if _, err := s.Create(ctx, configMap("ns", "a", nil, map[string]any{"k": "1"}), false); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1600 << 10, 2500 << 10} {
		big := map[string]any{"k": strings.Repeat("x", size)}
		before := etcdRev(t, r.client)
		_, createErr := s.Create(ctx, configMap("ns", "big", nil, big), false)
		_, updateErr := s.Update(ctx, "ns", "a", func(cur *Object) (*unstructured.Unstructured, error) {
			next := cur.Decode()
			next.Object["data"] = big
			return next, nil
		}, false)
		for what, err := range map[string]error{"create": createErr, "update": updateErr} {
			if !apierrors.IsRequestEntityTooLargeError(err) || !strings.Contains(err.Error(), "bytes as stored") {
				t.Errorf("%s of %d KiB: %v, want 413 giving the size", what, size>>10, err)
			}
		}
		if rev := etcdRev(t, r.client); rev != before {
			t.Errorf("etcd moved from revision %d to %d", before, rev)
		}
	}
}
