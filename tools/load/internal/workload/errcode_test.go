package workload

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestCode(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	cases := []struct {
		err  error
		want string
	}{
		{nil, ""},
		{apierrors.NewConflict(gr, "x", errors.New("stale")), "409"},
		{fmt.Errorf("wrapped: %w", apierrors.NewNotFound(gr, "x")), "404"},
		{apierrors.NewTooManyRequests("slow down", 1), "429"},
		{errors.New("connection refused"), CodeTransport},
	}
	for _, c := range cases {
		if got := Code(c.err); got != c.want {
			t.Errorf("Code(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
