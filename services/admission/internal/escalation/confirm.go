package escalation

import (
	"context"
	"slices"
	"sync"

	authenticationv1 "k8s.io/api/authentication/v1"
)

// maxConcurrentReviews bounds the reviews one check has in flight: a wide
// role breaks down into hundreds of permissions, and one write must not
// flood authz.
const maxConcurrentReviews = 8

// shortfall is what a check found the user lacks.
type shortfall struct {
	// missing are the permissions authz did not allow, in query order.
	missing []query
	// evaluationErrors are authz's reasons it could not fully evaluate,
	// deduplicated; they are reported with a denial, as kube reports its
	// rule resolution errors.
	evaluationErrors []string
}

// confirm asks authz whether user holds every permission in qs, at most
// maxConcurrentReviews at a time. The first review that cannot be asked
// stops the check with its error: an unknown answer is never an allow.
func (r *reviewer) confirm(ctx context.Context, user authenticationv1.UserInfo, qs []query) (shortfall, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	verdicts := make([]verdict, len(qs))
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	slots := make(chan struct{}, maxConcurrentReviews)
	for i := range qs {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			v, err := r.ask(ctx, user, qs[i])
			if err != nil {
				errOnce.Do(func() { firstErr = err; cancel() })
				return
			}
			verdicts[i] = v
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return shortfall{}, firstErr
	}
	if err := ctx.Err(); err != nil {
		return shortfall{}, err
	}
	return collect(qs, verdicts), nil
}

// collect gathers the denied queries and the evaluation errors.
func collect(qs []query, verdicts []verdict) shortfall {
	var s shortfall
	for i, v := range verdicts {
		if v.allowed {
			continue
		}
		s.missing = append(s.missing, qs[i])
		if v.evaluationError != "" && !slices.Contains(s.evaluationErrors, v.evaluationError) {
			s.evaluationErrors = append(s.evaluationErrors, v.evaluationError)
		}
	}
	return s
}
