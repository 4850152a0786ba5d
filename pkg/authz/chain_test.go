package authz

import (
	"context"
	"errors"
	"testing"
)

// answer is an Authorizer that gives a fixed answer and counts its calls.
type answer struct {
	res   Result
	err   error
	calls int
}

func (a *answer) Authorize(context.Context, Attributes) (Result, error) {
	a.calls++
	return a.res, a.err
}

func TestChain(t *testing.T) {
	errEngine := errors.New("engine down")
	allow := func(rev int64) *answer { return &answer{res: Result{DecisionAllow, "allowed", rev}, err: nil} }
	deny := func(rev int64) *answer { return &answer{res: Result{DecisionDeny, "denied", rev}, err: nil} }
	pass := func(reason string, rev int64) *answer {
		return &answer{res: Result{DecisionNoOpinion, reason, rev}, err: nil}
	}
	failing := func() *answer { return &answer{res: Result{Decision: DecisionNoOpinion}, err: errEngine} }

	cases := []struct {
		name    string
		chain   []*answer
		want    Result
		wantErr error
		asked   int // how many of the chain were asked
	}{
		{"empty", nil, Result{Decision: DecisionNoOpinion}, nil, 0},
		{"first allow decides", []*answer{allow(0), deny(0)}, Result{DecisionAllow, "allowed", 0}, nil, 1},
		{"first deny decides", []*answer{deny(0), allow(0)}, Result{DecisionDeny, "denied", 0}, nil, 1},
		{"no opinion falls through", []*answer{pass("", 0), allow(0)}, Result{DecisionAllow, "allowed", 0}, nil, 2},
		{"nobody decides: reasons joined", []*answer{pass("a", 0), pass("b", 0)}, Result{DecisionNoOpinion, "a\nb", 0}, nil, 2},
		{"error remembered when nobody decides", []*answer{failing(), pass("", 0)}, Result{Decision: DecisionNoOpinion}, errEngine, 2},
		{"error then allow: allow", []*answer{failing(), allow(0)}, Result{DecisionAllow, "allowed", 0}, nil, 2},
		{"error then deny: deny", []*answer{failing(), deny(0)}, Result{DecisionDeny, "denied", 0}, nil, 2},
		{"revision of the decider", []*answer{pass("", 0), allow(7)}, Result{DecisionAllow, "allowed", 7}, nil, 2},
		{"oldest revision asked", []*answer{pass("", 5), allow(7)}, Result{DecisionAllow, "allowed", 5}, nil, 2},
		{"oldest revision, nobody decides", []*answer{pass("", 9), pass("", 0), pass("", 4)}, Result{Decision: DecisionNoOpinion, Reason: "", Revision: 4}, nil, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			as := make([]Authorizer, len(c.chain))
			for i, a := range c.chain {
				as[i] = a
			}
			got, err := mustChain(t, as...).Authorize(context.Background(), Attributes{})
			if got != c.want {
				t.Errorf("result %+v, want %+v", got, c.want)
			}
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil && err != nil) {
				t.Errorf("error %v, want %v", err, c.wantErr)
			}
			asked := 0
			for _, a := range c.chain {
				asked += a.calls
			}
			if asked != c.asked {
				t.Errorf("asked %d authorizers, want %d", asked, c.asked)
			}
		})
	}
}

func TestChainRejectsNil(t *testing.T) {
	if _, err := Chain(AlwaysAllow(), nil); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("error %v, want ErrInvalidConfig", err)
	}
}
