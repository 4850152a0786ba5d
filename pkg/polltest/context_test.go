package polltest

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestPollHoldsOnceCondDoes(t *testing.T) {
	calls := 0
	held, err := poll(t.Context(), 5*time.Second, func(context.Context) (bool, error) {
		calls++
		return calls == 3, nil
	})
	if !held || err != nil || calls != 3 {
		t.Fatalf("held %v, err %v after %d calls; want held after 3", held, err, calls)
	}
}

func TestPollTimesOut(t *testing.T) {
	start := time.Now()
	held, err := poll(t.Context(), 50*time.Millisecond, func(context.Context) (bool, error) { return false, nil })
	if held || err != nil {
		t.Fatalf("held %v, err %v; want a timeout", held, err)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Fatalf("gave up after %v, before the timeout", waited)
	}
}

func TestPollStopsAtAnError(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	held, err := poll(t.Context(), 5*time.Second, func(context.Context) (bool, error) {
		calls++
		return false, boom
	})
	if held || !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("held %v, err %v after %d calls; want boom after 1", held, err, calls)
	}
}

func TestPollContextEndingIsATimeout(t *testing.T) {
	held, err := poll(t.Context(), 50*time.Millisecond, func(ctx context.Context) (bool, error) {
		<-ctx.Done()
		return false, ctx.Err()
	})
	if held || err != nil {
		t.Fatalf("held %v, err %v; want a timeout", held, err)
	}
}
